package app

// VMResetter is apply --proxmox-reset's way of bringing a node back, for its tests.
var VMResetter = vmResetter
