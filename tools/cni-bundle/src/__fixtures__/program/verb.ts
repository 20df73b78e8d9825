/** The `greet` verb's module (imported on demand). */
export const shout = (text: string): string => `${text.toUpperCase()}!`;
