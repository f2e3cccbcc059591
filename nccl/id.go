package nccl

import (
	"encoding/hex"
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// UniqueID names a communicator being made (ncclUniqueId): rank 0 makes it
// with NewUniqueID and every rank passes it to NewComm. It is 128 opaque
// bytes; its text form (hexadecimal, 256 characters) travels by any channel
// the program has: an environment variable, a file, HTTP. For real NCCL it
// holds the network address of rank 0's bootstrap listener, so whoever can
// read it can join the communicator: treat it as a secret of the job.
type UniqueID [128]byte

// NewUniqueID makes an id with the NCCL of ctx's driver (ncclGetUniqueId).
// With the real NCCL, this listens on a network interface for the ranks'
// bootstrap (NCCL_SOCKET_IFNAME chooses which; see the package
// documentation).
func NewUniqueID(ctx *driver.Context) (UniqueID, error) {
	const op = "nccl.NewUniqueID"
	n, err := ncclOf(op, ctx)
	if err != nil {
		return UniqueID{}, err
	}
	id, err := n.GetUniqueID()
	if err != nil {
		return UniqueID{}, fmt.Errorf("%s: %w", op, err)
	}
	return UniqueID(id), nil
}

// String returns the id in hexadecimal (256 characters).
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// MarshalText returns the id in hexadecimal.
func (id UniqueID) MarshalText() ([]byte, error) {
	b := make([]byte, hex.EncodedLen(len(id)))
	hex.Encode(b, id[:])
	return b, nil
}

// UnmarshalText reads an id written by MarshalText (or String). Anything
// else (another length, a non-hexadecimal character) is an error and leaves
// id unchanged.
func (id *UniqueID) UnmarshalText(text []byte) error {
	return id.parse("nccl.UniqueID.UnmarshalText", text)
}

// ParseUniqueID is UnmarshalText for a string.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	err := id.parse("nccl.ParseUniqueID", []byte(s))
	return id, err
}

func (id *UniqueID) parse(op string, text []byte) error {
	if len(text) != hex.EncodedLen(len(id)) {
		return fmt.Errorf("%s: %d characters, want %d hexadecimal digits: %w",
			op, len(text), hex.EncodedLen(len(id)), driver.ErrInvalidInput)
	}
	var v UniqueID
	if _, err := hex.Decode(v[:], text); err != nil {
		return fmt.Errorf("%s: %v: %w", op, err, driver.ErrInvalidInput)
	}
	*id = v
	return nil
}
