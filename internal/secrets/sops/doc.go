// Package sops decrypts SOPS-encrypted YAML documents whose data key is
// wrapped for age recipients, and encrypts them the same way (Encrypt, for
// the bundle talops init writes), using only filippo.io/age and the
// standard library.
//
// The format follows sops v3: every leaf value is sealed with AES-256-GCM
// under the document's data key, with the colon-joined path of mapping keys
// (list indices do not contribute) plus a trailing colon as additional data.
// The MAC is the upper-case hex SHA-512 over the leaf values in walk order,
// itself sealed with the data key and `sops.lastmodified` as additional
// data. The unencrypted_suffix, encrypted_suffix, unencrypted_regex,
// encrypted_regex, unencrypted_comment_regex, encrypted_comment_regex and
// mac_only_encrypted settings decide which values are sealed and which count
// towards the MAC, exactly as sops decides it.
//
// The output is laid out as `sops decrypt` lays it out (four-space indent,
// keys in their original order, comments where sops puts them), except that
// a float such as 3.0 stays a float where sops prints 3.
//
// Comments are restored in the output: encrypted comments are decrypted,
// plaintext ones are kept as they are. Comments are not covered by the MAC
// (sops never covers them), so their text must not be trusted. Neither is
// the type tag of an encrypted value authenticated: as in sops, swapping
// type:int for type:str turns 2 into "2" without breaking the MAC.
//
// Stricter than sops, which tolerates them silently or panics: duplicate
// keys, an invalid regular expression in the metadata, a scalar that
// contradicts its explicit tag, a plaintext non-string where an encrypted
// value belongs, and an ENC[...] value with text after its closing bracket
// are refused as malformed.
//
// Deliberately unsupported: Shamir secret sharing across several key
// groups, key types other than age (pgp, kms, ...), age plugins and
// passphrase-protected identity files.
package sops
