package protocol

// MaxPayloadBytes is the largest Socket.IO message a Server accepts by
// default (engine.io's maxHttpBufferSize, 16 MiB): a bigger one closes the
// sender's connection with every request in flight on it. A Computer
// never sends a bigger answer; it answers CodePayloadTooLarge instead.
const MaxPayloadBytes = 16 << 20
