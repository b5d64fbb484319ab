package snmp

// workspace holds one worker's reusable buffers, so that answering a
// request allocates little: decoded varbinds, object identifiers, the
// response varbinds and the encoded response all live here between requests.
type workspace struct {
	p    pdu
	vbs  []varbind // backing array of p.vbs
	out  []varbind // backing array of the outcome's varbinds
	cur  []OID     // GETBULK repeaters
	ids  []uint32  // arena of decoded and generated object identifiers
	resp []byte    // the encoded response
	v    view
}

// reset prepares the workspace for the next request.
func (ws *workspace) reset() {
	ws.p = pdu{vbs: ws.vbs[:0]}
	ws.out, ws.cur, ws.ids = ws.out[:0], ws.cur[:0], ws.ids[:0]
}

// oid returns a new OID made of prefix followed by sub, carved from the arena.
// Earlier OIDs stay valid when the arena grows, as they keep the old array.
func (ws *workspace) oid(prefix OID, sub ...uint32) OID {
	start := len(ws.ids)
	ws.ids = append(append(ws.ids, prefix...), sub...)
	return ws.ids[start:len(ws.ids):len(ws.ids)]
}
