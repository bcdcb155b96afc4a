"""Terminal control codes taken out of text before it is stored.

Agents capture what commands print, and commands print for a terminal: colours (`ESC[31m`), cursor moves, window
titles (`ESC]0;…BEL`), hyperlinks (`ESC]8;;URL ESC\\`), progress bars redrawn with a carriage return, man pages'
overstrike (`N BS N`). Stored as they are, they break words (`ESC[1mDefault` indexes as the word `1mdefault`, so
"Default" does not find it), waste a trimmed tool output's room, and reach a terminal that runs them when memlens
shows the text: a stored OSC 52 sequence sets the reader's clipboard. ECMA-48 defines their shapes; each is dropped
whole, leaving the text a terminal would have shown.
"""

from __future__ import annotations

import re

# CSI (colours, cursor moves): parameters, intermediates, one final byte. A string sequence (OSC, DCS, SOS, PM,
# APC) runs to its terminator (BEL or ST); one left open stops at the line's end rather than taking the message.
# Any other escape: intermediates and one final byte. A lone ESC goes with the controls below.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
_OVERSTRUCK = re.compile("[^\x08\n]\x08")  # `N BS N` is a bold N, `_ BS N` an underlined one: the N is left
_CONTROL = re.compile("[\x01-\x08\x0e-\x1f\x7f-\x9f]")
_ANY = re.compile("[\x01-\x08\x0b-\x1f\x7f-\x9f]")  # what makes a text need any of the passes


def without_terminal_codes(text: str) -> str:
    """`text` without escape sequences and control characters, keeping tabs and line breaks: a carriage return ends
    a line (a redrawn progress bar keeps each state it drew, CRLF is one break), a vertical tab or form feed is a
    space."""
    if not _ANY.search(text):
        return text
    text = _SEQUENCE.sub("", text)
    if "\x08" in text:
        text = _OVERSTRUCK.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text.replace("\x0b", " ").replace("\x0c", " "))
