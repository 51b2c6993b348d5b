/** What a command produced: the shell prints it and exits with the code. */
export interface CommandResult {
  readonly code: number
  readonly stdout?: string
  readonly stderr?: string
}

/** Exit codes: 0 ok; 1 bad usage or input; 2 no accountant could answer / target infeasible; 3 audit violation; 4 audit inconclusive. */
export const EXIT = { ok: 0, input: 1, accounting: 2, violation: 3, inconclusive: 4, internal: 70 } as const
