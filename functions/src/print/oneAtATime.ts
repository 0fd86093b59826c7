/**
 * A queue that runs the work given to it one piece at a time, in order, whatever each piece's outcome:
 * for CPU- and memory-heavy work (renders, image decodes) that gains nothing from running at once on an
 * instance's one vCPU and would multiply its memory.
 */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
}
