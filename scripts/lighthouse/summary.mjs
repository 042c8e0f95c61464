// Prints the numbers of Lighthouse JSON reports (scripts/lighthouse.sh): per run, and the median
// per page.
import { readFileSync } from 'node:fs';

const TARGETS = 'targets: performance >= 95, LCP <= 1.5 s, CLS <= 0.05';

const rows = process.argv.slice(2).map((file) => {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const audit = (id) => report.audits[id]?.numericValue ?? NaN;
  return {
    url: new URL(report.finalDisplayedUrl ?? report.finalUrl).pathname,
    performance: Math.round((report.categories.performance?.score ?? NaN) * 100),
    fcp: audit('first-contentful-paint') / 1000,
    lcp: audit('largest-contentful-paint') / 1000,
    cls: audit('cumulative-layout-shift'),
    tbt: audit('total-blocking-time'),
    speedIndex: audit('speed-index') / 1000,
    warnings: report.runWarnings ?? [],
  };
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const line = (label, r) =>
  `${label.padEnd(16)}${String(r.performance).padStart(5)}${r.fcp.toFixed(2).padStart(8)}${r.lcp.toFixed(2).padStart(8)}${r.cls.toFixed(3).padStart(8)}${Math.round(r.tbt).toString().padStart(8)}${r.speedIndex.toFixed(2).padStart(8)}`;

console.log(`Lighthouse, mobile profile (simulated throttling); ${TARGETS}`);
console.log(`${'page / run'.padEnd(16)}${'perf'.padStart(5)}${'FCP s'.padStart(8)}${'LCP s'.padStart(8)}${'CLS'.padStart(8)}${'TBT ms'.padStart(8)}${'SI s'.padStart(8)}`);
for (const url of new Set(rows.map((r) => r.url))) {
  const runs = rows.filter((r) => r.url === url);
  runs.forEach((r, i) => console.log(line(`${url} #${i + 1}`, r)));
  const keys = ['performance', 'fcp', 'lcp', 'cls', 'tbt', 'speedIndex'];
  console.log(line(`${url} median`, Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))]))));
  for (const warning of new Set(runs.flatMap((r) => r.warnings))) console.log(`  warning: ${warning}`);
}
