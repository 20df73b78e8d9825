// `npm run images [-- NAME...]`: builds fabrik's images here, without a registry (see README.md).
// Run after `npm run build` (the root script does both). Prints one line per image with its size;
// images whose app is not in this checkout yet are listed as not built, and the exit code is 1.
import { ensureImages } from './build.js';

const only = process.argv.slice(2);
const t0 = Date.now();
const { images, skipped } = await ensureImages({
  ...(only.length > 0 ? { only } : {}),
  log: (line) => process.stderr.write(`images: ${line}\n`),
});
for (const image of images)
  process.stdout.write(
    `${image.tags.join(' ')}  ${(image.sizeBytes / 1e6).toFixed(1)} MB${image.built ? '' : ' (cached)'}\n`,
  );
for (const s of skipped) process.stdout.write(`${s.name}: not built: ${s.reason}\n`);
process.stdout.write(
  `images: ${images.length} ready, ${skipped.length} not built, ${Math.round((Date.now() - t0) / 1000)} s\n`,
);
process.exitCode = skipped.length > 0 ? 1 : 0;
