// The built-in secret list (docs/tools.md, What is indexed): the one place it
// is written down. rules.ts compiles it; docs/tools.md prints it, and
// test/secret-list.test.ts checks that the two never drift apart.
//
// A pattern is a glob of the one engine (glob.ts), matched with ASCII case
// folded. Without `/` it matches a file's own name at any depth; with `/` it
// matches the whole repository-relative path, so credential files that live
// in a well-known folder (`.aws/credentials`) are written `**/folder/name`
// to match at any depth too. Refusing a harmless file is the safe side:
// a name is listed when files by that name hold credentials as a rule, not
// merely sometimes.

export interface SecretName {
  pattern: string;
  /** What such a file holds: printed in docs/tools.md beside the pattern. */
  holds: string;
}

export const SECRET_NAMES: readonly SecretName[] = Object.freeze([
  { pattern: '.env', holds: 'environment variables: API keys, database passwords' },
  { pattern: '.env.*', holds: 'the same, per environment (`.env.local`, `.env.production`)' },
  { pattern: '.envrc', holds: 'direnv\'s environment, usually exported credentials' },
  { pattern: '*.pem', holds: 'PEM keys and certificates, private keys among them' },
  { pattern: '*.key', holds: 'private keys (TLS, Rails `master.key`)' },
  { pattern: '*.p12', holds: 'PKCS#12 bundles: a private key with its certificate' },
  { pattern: '*.pfx', holds: 'the same, Windows\' name for it' },
  { pattern: '*.ppk', holds: 'PuTTY private keys' },
  { pattern: '*.keystore', holds: 'Java and Android keystores (signing keys)' },
  { pattern: '*.jks', holds: 'Java keystores' },
  { pattern: 'id_rsa*', holds: 'SSH keys (the `.pub` halves too: refusing them costs nothing)' },
  { pattern: 'id_dsa*', holds: 'SSH keys' },
  { pattern: 'id_ecdsa*', holds: 'SSH keys (`id_ecdsa_sk` too)' },
  { pattern: 'id_ed25519*', holds: 'SSH keys (`id_ed25519_sk` too)' },
  { pattern: '.netrc', holds: 'logins and passwords for hosts (curl, git, ftp)' },
  { pattern: '.npmrc', holds: 'npm registry tokens' },
  { pattern: '.pypirc', holds: 'PyPI upload passwords and tokens' },
  { pattern: '.git-credentials', holds: 'git\'s stored HTTPS passwords, in clear' },
  { pattern: '.pgpass', holds: 'PostgreSQL passwords' },
  { pattern: '.my.cnf', holds: 'MySQL client passwords' },
  { pattern: '.htpasswd', holds: 'HTTP basic-auth password hashes' },
  { pattern: 'shadow', holds: 'the system\'s password hashes (`/etc/shadow`, a tree such as `/etc` or a container image\'s root)' },
  { pattern: 'shadow-', holds: 'its backup copy' },
  { pattern: 'gshadow', holds: 'group password hashes (`/etc/gshadow`)' },
  { pattern: 'gshadow-', holds: 'its backup copy' },
  { pattern: 'master.passwd', holds: 'the BSDs\' and macOS\' password hashes' },
  { pattern: '*.kdbx', holds: 'KeePass password databases' },
  { pattern: '.vault-token', holds: 'a HashiCorp Vault token' },
  { pattern: '.s3cfg', holds: 's3cmd\'s AWS access keys' },
  { pattern: '.boto', holds: 'boto\'s AWS and GCS keys' },
  { pattern: '.dockercfg', holds: 'Docker registry logins (the old format)' },
  { pattern: '.terraformrc', holds: 'Terraform Cloud tokens' },
  { pattern: 'terraform.rc', holds: 'the same, Windows\' name for it' },
  { pattern: '*.tfvars', holds: 'Terraform variables, passwords and keys among them' },
  { pattern: '*.tfstate', holds: 'Terraform state: every resource\'s secrets in clear' },
  { pattern: '*.tfstate.*', holds: 'its backups (`terraform.tfstate.backup`)' },
  { pattern: 'credentials.json', holds: 'Google OAuth client secrets and similar downloads' },
  { pattern: 'service-account*.json', holds: 'Google Cloud service-account keys' },
  { pattern: 'secrets.yml', holds: 'Rails secrets (`secret_key_base`) and similar' },
  { pattern: 'secrets.yaml', holds: 'the same, the other spelling' },
  { pattern: '**/.aws/credentials', holds: 'AWS access keys' },
  { pattern: '**/.docker/config.json', holds: 'Docker registry logins' },
  { pattern: '**/.kube/config', holds: 'Kubernetes cluster credentials and tokens' },
  { pattern: '**/.gem/credentials', holds: 'RubyGems API keys' },
  { pattern: '**/.cargo/credentials', holds: 'crates.io tokens' },
  { pattern: '**/.cargo/credentials.toml', holds: 'the same, newer name' },
  { pattern: '**/.config/gh/hosts.yml', holds: 'GitHub CLI OAuth tokens' },
]);

/** The patterns alone, in the list's order. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = Object.freeze(SECRET_NAMES.map((s) => s.pattern));

/** The list as docs/tools.md prints it (a Markdown table); the doc holds exactly this between its markers. */
export function secretListMarkdown(): string {
  const rows = SECRET_NAMES.map((s) => `| \`${s.pattern}\` | ${s.holds} |`);
  return ['| pattern | what such a file holds |', '|---|---|', ...rows].join('\n');
}
