import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";

/**
 * Lists the run's slowest tests at its end, after the list reporter's summary, where CI's log tail
 * shows them: what to look at first when the e2e run grows past its share of CI's time.
 * `FERRY_E2E_SLOWEST` sets how many (20 unless set; 0 lists none).
 */
export default class SlowestReporter implements Reporter {
  private readonly results: { title: string; ms: number }[] = [];

  onTestEnd(test: TestCase, result: TestResult) {
    const [, , file, ...titles] = test.titlePath();
    this.results.push({ title: `${file} › ${titles.join(" › ")}`, ms: result.duration });
  }

  onEnd(_result: FullResult) {
    const count = Number(process.env.FERRY_E2E_SLOWEST ?? 20);
    if (!count || this.results.length === 0) return;
    const total = this.results.reduce((sum, r) => sum + r.ms, 0);
    const slowest = [...this.results].sort((a, b) => b.ms - a.ms).slice(0, count);
    const share = slowest.reduce((sum, r) => sum + r.ms, 0);
    console.log(`\n  The ${slowest.length} slowest tests (${(share / 60_000).toFixed(1)} of ${(total / 60_000).toFixed(1)} min of test time):`);
    for (const r of slowest) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.title.slice(0, 150)}`);
  }
}
