/** Which helm attempt failed: a reinstall counts as an install (status.lastAttemptedAction). */
export type FailedAction = 'install' | 'upgrade';
