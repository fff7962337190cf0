/* SPDX-License-Identifier: MIT */
/*
 * Text a guest wrote, made safe for the operator's terminal. A guest's
 * result lines reach ember-agent's output (ember-agent vm, calibrate); a
 * control character there is an instruction to the terminal (ESC [2J
 * clears it, OSC sets its title or clipboard, C1's CSI U+009B starts a
 * sequence without ESC). em_term_safe() keeps printable ASCII and valid
 * UTF-8 of printable characters as they are and writes everything else
 * visibly: \xNN for a C0 control, DEL or a byte that is not valid
 * UTF-8, \u{NNNN} for a C1 control, a bidirectional override or isolate,
 * or a line or paragraph separator.
 */
#ifndef EMBER_AGENT_TERM_H
#define EMBER_AGENT_TERM_H

#include <stddef.h>

/*
 * s escaped into buf (len bytes, NUL included); cut short with "..." where
 * it does not fit. Returns buf.
 */
const char *em_term_safe(const char *s, char *buf, size_t len);

#endif /* EMBER_AGENT_TERM_H */
