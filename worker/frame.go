package worker

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The protocol between the parent and a worker: fixed 32-byte headers in
// little-endian order, each followed by its payload, over two pipes (the
// parent writes requests to one and reads replies from the other). One
// call is in flight per worker; replies carry the request's sequence
// number.
//
//	request: magic, kind (call, exit), flags, function id, seq, argument
//	         length; then the argument's bytes, then (flag waitEvent) an
//	         IPC event handle the worker waits for before the function.
//	reply:   magic, kind (hello, ok, error, fault, panic), seq, result
//	         length, text length, driver.Result code, aux; then the result's
//	         bytes and the text.
//
// The worker greets first (kind hello): the number of its registered
// functions in seq and their hash in aux, its process id in code,
// and, as text, why its driver did not open, if it did not.
const (
	headerSize  = 32
	frameMagic  = 0x3157434e // "NCW1"
	maxTextSize = 16 << 10
)

// Request kinds.
const (
	reqCall byte = 1
	reqExit byte = 2
)

// Request flags.
const (
	flagWaitEvent byte = 1 // an IPC event handle follows the argument
)

// Reply kinds.
const (
	repHello byte = 1
	repOK    byte = 2
	repError byte = 3
	repFault byte = 4
	repPanic byte = 5
)

type request struct {
	kind, flags byte
	fn, seq     uint32
	argLen      uint32
}

func putRequest(b []byte, r request) {
	binary.LittleEndian.PutUint32(b[0:], frameMagic)
	b[4], b[5], b[6], b[7] = r.kind, r.flags, 0, 0
	binary.LittleEndian.PutUint32(b[8:], r.fn)
	binary.LittleEndian.PutUint32(b[12:], r.seq)
	binary.LittleEndian.PutUint32(b[16:], r.argLen)
	clear(b[20:headerSize])
}

func getRequest(b []byte) (request, error) {
	if binary.LittleEndian.Uint32(b) != frameMagic {
		return request{}, fmt.Errorf("bad request frame (magic %#x)", binary.LittleEndian.Uint32(b))
	}
	r := request{kind: b[4], flags: b[5], fn: binary.LittleEndian.Uint32(b[8:]), seq: binary.LittleEndian.Uint32(b[12:]), argLen: binary.LittleEndian.Uint32(b[16:])}
	if r.argLen > MaxValueSize {
		return request{}, fmt.Errorf("bad request frame (argument of %d bytes)", r.argLen)
	}
	return r, nil
}

type reply struct {
	kind    byte
	seq     uint32
	resLen  uint32
	textLen uint32
	code    int32
	aux     uint64
}

func putReply(b []byte, r reply) {
	binary.LittleEndian.PutUint32(b[0:], frameMagic)
	b[4], b[5], b[6], b[7] = r.kind, 0, 0, 0
	binary.LittleEndian.PutUint32(b[8:], r.seq)
	binary.LittleEndian.PutUint32(b[12:], r.resLen)
	binary.LittleEndian.PutUint32(b[16:], r.textLen)
	binary.LittleEndian.PutUint32(b[20:], uint32(r.code))
	binary.LittleEndian.PutUint64(b[24:], r.aux)
}

func getReply(b []byte) (reply, error) {
	if binary.LittleEndian.Uint32(b) != frameMagic {
		return reply{}, fmt.Errorf("bad reply frame (magic %#x): is something else writing to the worker's pipe?", binary.LittleEndian.Uint32(b))
	}
	r := reply{kind: b[4], seq: binary.LittleEndian.Uint32(b[8:]), resLen: binary.LittleEndian.Uint32(b[12:]),
		textLen: binary.LittleEndian.Uint32(b[16:]), code: int32(binary.LittleEndian.Uint32(b[20:])), aux: binary.LittleEndian.Uint64(b[24:])}
	if r.resLen > MaxValueSize || r.textLen > maxTextSize {
		return reply{}, fmt.Errorf("bad reply frame (%d result bytes, %d text bytes)", r.resLen, r.textLen)
	}
	return r, nil
}

// readFull reads len(b) bytes.
func readFull(r io.Reader, b []byte) error {
	_, err := io.ReadFull(r, b)
	return err
}
