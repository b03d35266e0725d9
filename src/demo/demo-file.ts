/** The demo database's name in data.dir (its own module, so a caller needs no SQLite to name it). */
export const demoFileName = 'demo.sqlite';
