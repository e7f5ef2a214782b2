/*
 * The Python SDK's tools live in a virtual environment of their own (clients/python/.venv), made on first
 * use from clients/python/requirements-dev.txt with python3 and PyPI; a changed requirements file makes
 * it again. Both the generator and the Python end-to-end test call this, so `npm test` needs no step by hand.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const PYTHON_DIR = path.join(__dirname, 'python');
const VENV = path.join(PYTHON_DIR, '.venv');

export function venvBin(name: string): string {
  return path.join(VENV, 'bin', name);
}

export function ensurePythonEnv(): string {
  const requirements = path.join(PYTHON_DIR, 'requirements-dev.txt');
  const want = crypto.createHash('sha256').update(fs.readFileSync(requirements)).digest('hex');
  const stamp = path.join(VENV, '.requirements-sha256');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return venvBin('python');
  fs.rmSync(VENV, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: ['ignore', 'inherit', 'inherit'] });
  execFileSync(venvBin('pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements], { stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(stamp, want);
  return venvBin('python');
}
