/** A plain text table: the first `leftColumns` columns left-aligned, the others right-aligned. */
export function table(header: string[], rows: Array<Array<string | number>>, leftColumns = 2): string {
	const cells = [header, ...rows.map((row) => row.map((cell) => String(cell)))];
	const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
	const line = (row: string[]) =>
		row.map((cell, column) => (column < leftColumns ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
	return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const fixed = (value: number | undefined, digits = 0): string =>
	value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);

export const ratio = (value: number | undefined): string =>
	value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`;
