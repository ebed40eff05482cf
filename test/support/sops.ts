// The real age and sops of the toolchain (scripts/build-toolchain.sh), for tests that encrypt
// values as a user would: keys from age-keygen, documents from `sops encrypt`, on stdin/stdout.
import { execa } from 'execa';
import { toolchainPaths } from '../../src/dev/paths.js';

export interface AgeKey {
  /** What goes into a Secret's `<name>.agekey` key: age-keygen's whole output, comments included. */
  file: string;
  /** The public key, age1… */
  recipient: string;
}

export async function ageKeygen(): Promise<AgeKey> {
  const { stdout } = await execa(toolchainPaths().ageKeygen, [], { stdin: 'ignore' });
  const recipient = /^# public key: (age1\S+)$/m.exec(stdout)?.[1];
  if (!recipient) throw new Error('age-keygen printed no public key');
  return { file: `${stdout}\n`, recipient };
}

/** `sops encrypt` of a YAML or JSON document for these age recipients, with the real tool. */
export async function sopsEncrypt(text: string, recipients: string[], format: 'yaml' | 'json' = 'yaml'): Promise<string> {
  const { stdout } = await execa(
    toolchainPaths().sops,
    ['encrypt', '--age', recipients.join(','), '--input-type', format, '--output-type', format, '--filename-override', `values.${format}`],
    { input: text, env: { HOME: '/nonexistent', SOPS_DISABLE_VERSION_CHECK: 'true' }, extendEnv: false, cwd: '/' },
  );
  return stdout;
}
