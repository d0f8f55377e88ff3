// `npm run bench:compare A B`: two runs' summaries (bench/.results/*.json, e.g. two commits or two machines)
// side by side: each measure's figure in A and B, B's change, and whether either missed its goal.
import { readFileSync } from 'node:fs';
import { formatFigure, type Measure } from './lib.js';

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: npm run bench:compare <A.json> <B.json>');
  process.exit(2);
}
type Run = { startedAt: string; commit: string; machine: { before: { note: string } }; measures: Measure[] };
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Run;
const [runA, runB] = [read(a), read(b)];
console.log(`A: ${a} (commit ${runA.commit}, ${runA.startedAt}; ${runA.machine.before.note})`);
console.log(`B: ${b} (commit ${runB.commit}, ${runB.startedAt}; ${runB.machine.before.note})`);
const names = [...new Set([...runA.measures.map((m) => m.measure), ...runB.measures.map((m) => m.measure)])];
const find = (run: Run, name: string) => run.measures.find((m) => m.measure === name);
console.table(
  names.map((name) => {
    const [ma, mb] = [find(runA, name), find(runB, name)];
    const change = ma && mb && ma.figure !== 0 ? `${mb.figure >= ma.figure ? '+' : ''}${(((mb.figure - ma.figure) / ma.figure) * 100).toFixed(1)}%` : '';
    return {
      measure: name,
      goal: (mb ?? ma)!.goal,
      A: ma ? `${formatFigure(ma)} ${ma.pass ? 'pass' : 'MISS'}` : '—',
      B: mb ? `${formatFigure(mb)} ${mb.pass ? 'pass' : 'MISS'}` : '—',
      'B vs A': change,
    };
  }),
);
