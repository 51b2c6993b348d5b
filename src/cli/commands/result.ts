/** What a command produced: the shell prints it and exits with the code. */
export interface CommandResult {
  readonly code: number
  readonly stdout?: string
  readonly stderr?: string
}

/**
 * Where a command may write its output as it goes, instead of all at once in `stdout`: for long
 * lists, so a reader that stops (`| head -1`) stops the work too. Returns false once the reader is
 * gone; the command then ends at once, with its code so far.
 */
export type OutputSink = (chunk: string) => boolean

/** Exit codes: 0 ok; 1 bad usage or input; 2 no accountant could answer / target infeasible; 3 audit violation; 4 audit inconclusive. */
export const EXIT = { ok: 0, input: 1, accounting: 2, violation: 3, inconclusive: 4, internal: 70 } as const
