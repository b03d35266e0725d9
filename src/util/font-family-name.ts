/**
 * The one font family of a built file's headers and body (documents.fontFamily,
 * or a document spec's fontFamily). Nothing is embedded: the reader's office
 * suite draws the family named, or its own substitute. Here, below both the
 * configuration and the file writers, since both name it.
 */
export const defaultFontFamily = 'Arial';

/** Letters, digits, spaces, dots, hyphens and underscores, 1-64 characters: every family name in use, and nothing that needs escaping in XML. */
export const fontFamilyPattern = '^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$';
