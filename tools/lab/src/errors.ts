import { FabrikError } from '@fabrik/netcore';

/** The lab cannot start on this machine (UML or its modules missing, shim cannot be built). */
export class LabUnavailableError extends FabrikError<'LAB_UNAVAILABLE'> {
  override readonly name = 'LabUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('LAB_UNAVAILABLE', message, options);
  }
}

/** A kernel module the lab needs did not load inside UML. */
export class LabModuleError extends FabrikError<'LAB_MODULE_MISSING'> {
  override readonly name = 'LabModuleError';
  constructor(readonly modules: readonly string[]) {
    super(
      'LAB_MODULE_MISSING',
      `the lab kernel could not load: ${modules.join(', ')} (see the modprobe messages above)`,
    );
  }
}

/** The lab kernel stopped (crash, timeout) before the command inside it finished. */
export class LabCrashedError extends FabrikError<'LAB_CRASHED'> {
  override readonly name = 'LabCrashedError';
  constructor(
    message: string,
    readonly outputTail: string,
  ) {
    super('LAB_CRASHED', `${message}\n--- last lab output ---\n${outputTail}`);
  }
}
