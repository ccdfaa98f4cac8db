/** How a run's waits end when it stops: the errors its items get, and how to tell a cancel. */

/** Given to items that had not been sent when another item's failure stopped the run. */
export class RunStoppedError extends Error {
	constructor() {
		super('Not sent: the run stopped at an earlier failure');
	}
}

/** Given to every wait of a run whose execution was cancelled (n8n reads "canceled" as a cancelled run). */
export class ExecutionCanceledError extends Error {
	name = 'ExecutionCancelledError';

	/** `timedOut`: n8n ended it at the workflow's Timeout Workflow setting, not at a Stop. */
	constructor(timedOut = false) {
		super(timedOut ? "The execution was canceled: it ran past the Timeout Workflow set in the workflow's settings" : 'The execution was canceled');
	}
}

/** Whether a run ended because its execution was cancelled (n8n's own cancel errors share the name). */
export const isCancellation = (reason: unknown): boolean => reason instanceof Error && reason.name === 'ExecutionCancelledError';
