// Types mirrored from the Go side (package app and the internal packages it
// returns). Keep in step with the Go structs' json tags.

export interface KeyringStatus {
  backend: string;
  persistent: boolean;
  problem?: string;
  advice?: string;
}

export interface Problem {
  kind: 'database' | 'keyring' | string;
  message: string;
  advice?: string;
  fatal: boolean;
}

export interface Info {
  version: string;
  dataDir: string;
  database: string;
  logDir: string;
  keyring: KeyringStatus;
  problems: Problem[];
}
