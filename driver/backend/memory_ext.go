package backend

// PeerAccessDisabler is implemented by backends that can undo
// CtxEnablePeerAccess: CtxDisablePeerAccess is cuCtxDisablePeerAccess,
// from the current context to peer.
type PeerAccessDisabler interface {
	CtxDisablePeerAccess(peer uintptr) error
}
