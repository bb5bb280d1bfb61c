import { type ChildProcess, spawn } from 'node:child_process';

/** The lab's helper processes (its SFUs, Firefox's sound server), started so that they end with the lab. */

/**
 * Starts `binary` through a shell that holds our end of a pipe: when it closes — `stopTied`, or this
 * process dying however it dies — the binary is stopped (SIGTERM, then SIGKILL 5 s on: LiveKit drains
 * its rooms on SIGTERM, and a room whose browsers died with this process lingered), so no run leaves an SFU or a sound server behind. The shell ends
 * with it; `output`, a file's descriptor, takes what it prints. (A job in the background reads /dev/null unless told otherwise: the pipe waits in descriptor 3.)
 */
export function spawnTied(
  binary: string,
  args: readonly string[],
  output: 'ignore' | number = 'ignore',
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(
    '/bin/sh',
    [
      '-c',
      'exec 3<&0; "$0" "$@" </dev/null 3<&- & child=$!; (cat <&3 >/dev/null; kill $child 2>/dev/null; sleep 5; kill -9 $child 2>/dev/null) & wait $child',
      binary,
      ...args,
    ],
    { stdio: ['pipe', output, output], env },
  );
}

export function stopTied(child: ChildProcess): void {
  child.stdin?.end();
}
