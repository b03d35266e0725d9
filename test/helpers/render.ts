/**
 * Renders office files with LibreOffice and reads the PDF back with poppler,
 * so tests can check what a person opening the file would see: which words are
 * on which page, and whether they stay inside the page.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : undefined;
}

/** Why rendering cannot run here, or undefined when soffice (with Calc, Writer and Impress), pdftotext and pdftoppm are all installed. */
export function renderUnavailable(): string | undefined {
  const missing = ['soffice', 'pdftotext', 'pdftoppm'].filter((command) => onPath(command) === undefined);
  const soffice = onPath('soffice');
  // soffice alone may be only Calc: Writer and Impress are libraries beside it (Debian's libreoffice-writer/-impress).
  if (soffice !== undefined) {
    const program = path.dirname(realpathSync(soffice));
    for (const [library, component] of [
      ['libsclo.so', 'libreoffice-calc'],
      ['libswlo.so', 'libreoffice-writer'],
      ['libsdlo.so', 'libreoffice-impress'],
    ] as const) {
      if (!existsSync(path.join(program, library))) missing.push(component);
    }
  }
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed; .ci/run installs libreoffice-calc/-writer/-impress and poppler-utils`;
}

/**
 * Converts files to PDF in `outDir` (one PDF per file, same base name) with a
 * private LibreOffice profile, so parallel runs do not share a lock.
 */
export async function renderPdf(files: string[], outDir: string): Promise<string[]> {
  return convert('pdf', files, outDir);
}

/**
 * The first page of each file as a PNG LibreOffice draws itself (`<base>.png`
 * in `outDir`). LibreOffice 7.4's PDF export leaves colour emoji (the bitmaps
 * of Noto Color Emoji) empty, though their text is in the PDF; its own drawing
 * shows them as a recipient's office suite does.
 */
export async function renderFirstPagePng(files: string[], outDir: string): Promise<string[]> {
  return convert('png', files, outDir);
}

async function convert(format: 'pdf' | 'png', files: string[], outDir: string): Promise<string[]> {
  const profile = await mkdtemp(path.join(tmpdir(), 'spillway-lo-profile-'));
  try {
    await run(
      'soffice',
      [`-env:UserInstallation=${pathToFileURL(profile).href}`, '--headless', '--norestore', '--convert-to', format, '--outdir', outDir, ...files],
      { timeout: 300_000 },
    );
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
  return files.map((file) => path.join(outDir, `${path.basename(file, path.extname(file))}.${format}`));
}

export interface PdfWord {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

export interface PdfPage {
  width: number;
  height: number;
  words: PdfWord[];
  /** The page's words joined by spaces, in reading order. */
  text: string;
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&#39;': "'" };

/** Every page of a PDF with each word's box (`pdftotext -bbox`, points from the top left). */
export async function readPdf(pdf: string): Promise<PdfPage[]> {
  const { stdout } = await run('pdftotext', ['-bbox', pdf, '-'], { maxBuffer: 256 * 1024 * 1024 });
  const pages: PdfPage[] = [];
  const pagePattern = /<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g;
  const wordPattern = /<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([\s\S]*?)<\/word>/g;
  for (const page of stdout.matchAll(pagePattern)) {
    const words: PdfWord[] = [];
    for (const word of (page[3] ?? '').matchAll(wordPattern)) {
      words.push({
        text: (word[5] ?? '').replaceAll(/&(amp|lt|gt|quot|apos|#39);/g, (entity) => entities[entity] ?? entity),
        xMin: Number(word[1]),
        yMin: Number(word[2]),
        xMax: Number(word[3]),
        yMax: Number(word[4]),
      });
    }
    pages.push({ width: Number(page[1]), height: Number(page[2]), words, text: words.map((word) => word.text).join(' ') });
  }
  return pages;
}

/** Words whose box leaves the page (more than half a point over an edge). */
export function wordsOutsidePage(pages: PdfPage[]): { page: number; word: PdfWord }[] {
  const outside: { page: number; word: PdfWord }[] = [];
  pages.forEach((page, index) => {
    for (const word of page.words) {
      if (word.xMin < -0.5 || word.yMin < -0.5 || word.xMax > page.width + 0.5 || word.yMax > page.height + 0.5) outside.push({ page: index + 1, word });
    }
  });
  return outside;
}

/** PNG images of the pages (`pdftoppm -png -r <dpi>`), named `<prefix>-<n>.png`. */
export async function renderPng(pdf: string, prefix: string, dpi = 60): Promise<void> {
  await run('pdftoppm', ['-png', '-r', String(dpi), pdf, prefix], { timeout: 300_000 });
}

/** Font families that draw Chinese, Japanese and Korean, Arabic, Hebrew and emoji, with the Debian package of each. */
const scriptFonts = [
  ['Noto Sans CJK', 'fonts-noto-cjk'],
  ['Noto Sans Arabic', 'fonts-noto-core'],
  ['Noto Sans Hebrew', 'fonts-noto-core'],
  ['Noto Color Emoji', 'fonts-noto-color-emoji'],
] as const;

/** Why CJK, RTL and emoji text cannot be rendered here (fc-list lacks a font), or undefined when the Noto fonts are installed. */
export function scriptFontsUnavailable(): string | undefined {
  const listed = spawnSync('fc-list', [':', 'family'], { encoding: 'utf8' });
  if (listed.status !== 0) return 'fc-list (fontconfig) is not installed';
  const families = listed.stdout.toLowerCase();
  const missing = scriptFonts.filter(([family]) => !families.includes(family.toLowerCase()));
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map(([, name]) => name))].join(', ');
  return `${missing.map(([family]) => family).join(', ')} not installed (fc-list); .ci/run installs ${packages}`;
}

/** A rendered page as RGB pixels (3 bytes a pixel, rows from the top). */
export interface PagePixels {
  width: number;
  height: number;
  rgb: Buffer;
}

/** Every page of a PDF as pixels (`pdftoppm -r <dpi>`, binary PPM files written under `dir`). */
export async function readPixels(pdf: string, dir: string, dpi = 50): Promise<PagePixels[]> {
  const prefix = path.join(dir, `${path.basename(pdf, '.pdf')}-pixels`);
  await run('pdftoppm', ['-r', String(dpi), pdf, prefix], { timeout: 300_000 });
  const names = (await readdir(dir)).filter((name) => name.startsWith(path.basename(prefix)) && name.endsWith('.ppm')).sort();
  const pages: PagePixels[] = [];
  for (const name of names) {
    const bytes = await readFile(path.join(dir, name));
    // P6 <width> <height> <max>\n then the pixels.
    const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.subarray(0, 64).toString('latin1'));
    if (header === null) throw new Error(`${name} is not a binary PPM`);
    pages.push({ width: Number(header[1]), height: Number(header[2]), rgb: bytes.subarray(header[0].length) });
  }
  return pages;
}

/**
 * The first and last pixel rows of a page that hold a run of at least `minRun`
 * pixels near `colour` (each channel within `tolerance`), or undefined: a
 * filled shape such as a chart's bar, not the strokes of text in a like colour.
 */
export function rowsWithColour(
  page: PagePixels,
  colour: [number, number, number],
  options: { tolerance?: number; minRun?: number } = {},
): { top: number; bottom: number } | undefined {
  const tolerance = options.tolerance ?? 25;
  const minRun = options.minRun ?? 6;
  let top: number | undefined;
  let bottom = -1;
  for (let y = 0; y < page.height; y += 1) {
    let run = 0;
    for (let x = 0; x < page.width && run < minRun; x += 1) {
      const at = (y * page.width + x) * 3;
      run = colour.every((channel, index) => Math.abs((page.rgb[at + index] ?? 0) - channel) <= tolerance) ? run + 1 : 0;
    }
    if (run >= minRun) {
      top ??= y;
      bottom = y;
    }
  }
  return top === undefined ? undefined : { top, bottom };
}
