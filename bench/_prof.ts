import { configureHarness, loadPackage } from '../test/harness';
import { makeItems, runOurNode } from '../bench/lib/contenders';
import { EmulatorProcess } from '../bench/lib/emulator-process';
async function main() {
  const emulator = await EmulatorProcess.start();
  try {
    await configureHarness({ expressionEngine: 'vm' });
    loadPackage();
    for (let rep = 0; rep < Number(process.env.REPS ?? 3); rep++) {
      await emulator.prepare({ latencyMs: 20 });
      const items = makeItems(2000, `p-${rep}`);
      const t = performance.now(); const cpu = process.cpuUsage();
      const o = await runOurNode(emulator.bearer, items, {}, 'vm');
      const u = process.cpuUsage(cpu);
      console.log(`rep ${rep}: ${o.succeeded} ok ${Math.round(2000/((performance.now()-t)/1000))} items/s cpu ${((u.user+u.system)/1000/2000).toFixed(3)} ms/item node ${o.nodeMs}`);
    }
  } finally { await emulator.stop(); }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
