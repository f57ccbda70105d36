package plan

// HashOf is hash, for the tests of what the hash covers.
var HashOf = hash

// SecretValuesChanged is secretValuesChanged, for its table.
var SecretValuesChanged = secretValuesChanged
