// The process's command slots, released by hand: who gets a slot that comes free is decided by the
// rule alone (fewest running, then longest since its turn), never by how long a command ran.
import { expect, it } from 'vitest';
import { CommandSlots } from './command-slots';

/** Takes a slot for each of `automations` in order; answers the grants in the order given, and each release. */
function taker(slots: CommandSlots) {
  const given: string[] = [];
  const releases = new Map<string, (() => void)[]>();
  const take = (automation: string) =>
    void slots.take(automation, new AbortController().signal).then((release) => {
      given.push(automation);
      releases.set(automation, [...(releases.get(automation) ?? []), release as () => void]);
    });
  const release = async (automation: string) => {
    releases.get(automation)?.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { given, take, release };
}

const settled = async () => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

it('gives each automation its first command at once, even over the bound, and holds its second', async () => {
  const slots = new CommandSlots(2);
  const { given, take } = taker(slots);
  for (const automation of ['a', 'a', 'b', 'c', 'b']) take(automation);
  await settled();
  expect(given).toEqual(['a', 'a', 'b', 'c']); // b's second waits: 4 run, the bound is 2
  expect(slots.busy).toBe(4);
});

it('gives a slot that comes free to the automation with the fewest running, then the longest since its turn', async () => {
  const slots = new CommandSlots(4);
  const { given, take, release } = taker(slots);
  for (const automation of ['a', 'a', 'b', 'c']) take(automation);
  await settled();
  // All 4 slots taken; a, b and c each wait with one more.
  for (const automation of ['c', 'b', 'a']) take(automation);
  await settled();
  expect(given).toEqual(['a', 'a', 'b', 'c']);
  // A slot comes free (one of a's: a, b and c run 1 each): a's turn was longest ago.
  await release('a');
  await settled();
  expect(given.slice(4)).toEqual(['a']);
  // Another of a's: a runs 1, b and c 1 each; b's turn is now the longest ago, then c's.
  await release('a');
  await settled();
  await release('a');
  await settled();
  expect(given.slice(4)).toEqual(['a', 'b', 'c']);
  // Fewest running before the longest since its turn: b and c each run 2 and wait with one more;
  // one of c's ends: c (1 running, its turn the latest) goes before b (2 running, its turn older).
  take('c');
  take('b');
  await settled();
  await release('c');
  await settled();
  expect(given.slice(7)).toEqual(['c']);
});
