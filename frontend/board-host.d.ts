// The board as its input modules (pointer.js, keys.js) see it: what they read and call. A type
// of its own, not `import("./board.js")` in their JSDoc: collectstatic's manifest reads that
// as an import, and board.js imports them (a cycle its hashed names cannot settle).
interface BoardHost {
  element: HTMLElement;
  piles: Record<string, HTMLElement>;
  state: { stock: number; waste: string[]; foundations: string[][]; tableau: (string | null)[][] } | null;
  options: { interactive?: boolean };
  canRecycle: boolean;
  render(state: BoardHost["state"], options?: object): void;
  send(body: object): void;
  pileArray(name: string): (string | null)[];
  goesHome(pile: string): boolean;
  drawOrRecycle(): void;
  say(text: string): void;
  status(text: string): void;
}
