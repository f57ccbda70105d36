package rules

// Finding codes. They are a contract: tools match on them, so they never change meaning.
const (
	// CodeConfigInvalid is a machinery validation error in a node's final config.
	CodeConfigInvalid = "config.invalid"
	// CodeConfigWarning is a machinery validation warning (an error with --strict).
	CodeConfigWarning = "config.warning"
	// CodePatchInvalid is a patch or complete config that cannot be loaded or applied.
	CodePatchInvalid = "patch.invalid"
	// CodeSecretsThrowaway says a throwaway bundle stood in for the real secrets.
	CodeSecretsThrowaway = "secrets.throwaway"
	// CodeK8sUnsupported is a Kubernetes version outside the Talos release's range.
	CodeK8sUnsupported = "versions.k8s-unsupported"
	// CodeUnknownRelease is a talosVersion that is not a Talos release this tool knows.
	CodeUnknownRelease = "versions.unknown-release"
)
