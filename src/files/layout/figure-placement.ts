/**
 * Where the figures of a flowing document (DOCX) go so that pages are not left
 * mostly blank: the blocks' heights are estimated (see docx-heights.ts), a page
 * is filled in order, and a figure that does not fit under what is already on
 * the page is either shrunk a little or lets the text after it flow in first.
 */

/** One thing on the page, with its estimated height in points. */
export type FlowItem =
  /** Text that may break between lines across pages (a paragraph, a list item). */
  | { kind: 'text'; height: number }
  /** A heading: kept with what follows, never the last thing before a figure that moved. */
  | { kind: 'heading'; height: number }
  /** A table: a lead (its caption) kept with the header row, rows that never split, the header repeated on every page. */
  | { kind: 'rows'; lead: number; header: number; rows: number[] }
  /** A picture at its natural size (already fitted to the text width) and its caption; never split. */
  | { kind: 'figure'; height: number; caption: number };

export interface FigurePlacement {
  /** The items in the order they go on the page: a moved figure comes after the text that flowed before it. */
  order: number[];
  /** Each figure's scale (1 = natural size), by item index. */
  scales: Map<number, number>;
  /** Figures that moved past the text after them: their place holds a reference line instead. */
  moved: Set<number>;
}

/** Pages fill in order; heights in points. */
export class PageCursor {
  used = 0;
  pages = 1;

  constructor(readonly pageHeight: number) {}

  room(): number {
    return this.pageHeight - this.used;
  }

  place(item: FlowItem, scale = 1): void {
    switch (item.kind) {
      case 'text':
        this.flow(item.height);
        break;
      case 'heading':
        this.block(item.height);
        break;
      case 'figure':
        this.block(item.height * scale + item.caption);
        break;
      case 'rows':
        this.block(item.lead + item.header + (item.rows[0] ?? 0));
        for (const height of item.rows.slice(1)) {
          if (this.used + height > this.pageHeight) this.newPage(item.header);
          this.used += height;
        }
    }
  }

  /** Text runs on over the page break. */
  private flow(height: number): void {
    let rest = height;
    while (this.used + rest > this.pageHeight) {
      rest -= this.pageHeight - this.used;
      this.newPage(0);
    }
    this.used += rest;
  }

  /** A block that does not fit the rest of the page starts the next one. */
  private block(height: number): void {
    if (this.used > 0 && this.used + height > this.pageHeight) this.newPage(0);
    this.used += height;
  }

  private newPage(used: number): void {
    this.pages += 1;
    this.used = used;
  }
}

/**
 * Places every figure where it leaves the least blank space. A figure that
 * fits the rest of the page stays at its size; one that fits at no less than
 * `minScale` of its size is shrunk to fit; otherwise the text after it (up to
 * the next figure, with tables that fit whole) flows into the rest of the page first and the
 * figure starts the next page, its place holding a reference line of
 * `referenceHeight`. A figure with no text after it that fits, or at the top
 * of a page, stays in place at its size.
 */
export function placeFigures(options: { items: FlowItem[]; pageHeight: number; minScale: number; referenceHeight: number; slack?: number }): FigurePlacement {
  const { items, pageHeight, minScale, referenceHeight } = options;
  // The estimates are rough: a little room is kept so that a figure judged to fit does fit.
  const slack = options.slack ?? 0.03 * pageHeight;
  const cursor = new PageCursor(pageHeight);
  const placement: FigurePlacement = { order: [], scales: new Map(), moved: new Set() };
  let index = 0;
  while (index < items.length) {
    const item = items[index] as FlowItem;
    if (item.kind !== 'figure') {
      cursor.place(item);
      placement.order.push(index);
      index += 1;
      continue;
    }
    const room = cursor.room() - slack;
    const scale = fittingScale(item, room);
    if (cursor.used === 0 || scale >= minScale) {
      const chosen = cursor.used === 0 ? 1 : Math.min(1, scale);
      placement.scales.set(index, chosen);
      cursor.place(item, chosen);
      placement.order.push(index);
      index += 1;
      continue;
    }
    const flowing = textThatFits(items, index + 1, room - referenceHeight);
    placement.scales.set(index, 1);
    if (flowing.length > 0) {
      placement.moved.add(index);
      cursor.place({ kind: 'text', height: referenceHeight });
      for (const taken of flowing) {
        cursor.place(items[taken] as FlowItem);
        placement.order.push(taken);
      }
    }
    cursor.place(item);
    placement.order.push(index);
    index += 1 + flowing.length;
  }
  return placement;
}

/** The scale at which a figure and its caption fill `room` (1 or more: it fits). */
function fittingScale(item: Extract<FlowItem, { kind: 'figure' }>, room: number): number {
  if (item.height <= 0) return 1;
  return (room - item.caption) / item.height;
}

/** The text, headings and whole small tables from `first` on that fit in `room`, stopping at a figure or at what does not fit; never ending on a heading. */
function textThatFits(items: FlowItem[], first: number, room: number): number[] {
  const taken: number[] = [];
  let used = 0;
  for (let at = first; at < items.length; at += 1) {
    const item = items[at] as FlowItem;
    if (item.kind === 'figure') break;
    const height = item.kind === 'rows' ? item.lead + item.header + item.rows.reduce((sum, row) => sum + row, 0) : item.height;
    if (used + height > room) break;
    used += height;
    taken.push(at);
  }
  while (taken.length > 0 && items[taken[taken.length - 1] as number]?.kind === 'heading') taken.pop();
  return taken;
}
