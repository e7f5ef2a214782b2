/** Whether the operator already gave a V8 flag matching `flag` (node's own flags or NODE_OPTIONS): theirs wins over ours. */
export function operatorSetsFlag(flag: RegExp, env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  return [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => flag.test(a));
}
