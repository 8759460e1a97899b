// Package verdict says whether a journal's session or run is over: the
// one answer the finalizer and the retention agent ask for.
//
// A verdict has two parts. Finished says whether more lines may still
// come, and Why names the rule that decided. The rules are tried in order:
//
//  1. the file's last complete line ends its session (or, for a format
//     whose runtime writes the end beside the journal, its side files say
//     so), and its whole file agrees;
//  2. only once it has stayed unchanged for Quiet: a newer session of its
//     group stands beside it; it is of a format that writes no end record
//     and its whole file leaves the session idle; its group (a Cortex
//     Plane job) is terminal; its partial last line never grew;
//  3. it has stayed unchanged for Idle.
//
// Over, Terminal, When, EndReason, State and Open say what the session
// itself is, from its whole file judged by its format (the audit, with
// its side files loaded): whether it has ended, for good or not, since
// when, how, and what it leaves unanswered. Session gives them; Of gives
// them too where one of its rules judged the whole file.
//
// A file whose sessions share a directory that ends as one (a Cortex
// Plane job) is judged by its group's state too: the format's own
// (format.GroupEnder, from the journals) or a GroupStatus the caller
// configures (the job database).
package verdict
