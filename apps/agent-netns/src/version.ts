/** agent-netns's version (package.json's; a unit test keeps them equal). */
export const VERSION = '0.1.0';
