// Package errtax classifies the explicit errors of research-agent runs from
// their logs, following the RExBench error taxonomy (arXiv 2506.22598v3,
// Tables 9 and 10; ../shared/methods.md §4.7), and reads hand annotations
// of implicit errors.
//
// It is pure: it reads only the io.Readers it is given and imports no other
// rdeval package.
//
// # Explicit errors
//
// An explicit error is one that stopped the code: a Python exception, a
// shell or harness error, or the harness's time cap. Each run gets one
// label, its primary error, with a group and a type:
//
//	group            types
//	python           AssertionError AttributeError EOFError FileNotFoundError ImportError
//	                 IndentationError IndexError IsADirectoryError KeyError LookupError
//	                 ModuleNotFoundError NameError NotImplementedError OSError RuntimeError
//	                 SyntaxError TypeError UnboundLocalError ValueError ZeroDivisionError
//	python_library   DatasetNotFoundError NotFoundError OutOfMemory ArgumentError ScannerError
//	python_other     ConstructorError JSONDecodeError HFValidationError ParserError
//	bash             empty patch, empty or missing (run_final.sh), patch failed,
//	                 cannot create directory, unable to write file, Permission denied,
//	                 syntax error, cannot access, command not found
//	timeout          Execution Timeout
//	python_unlisted  any other exception, typed by its own name (not in the paper)
//	none             none: no explicit error found
//
// PaperGroup maps the first five groups to the paper's labels. The
// built-in rules (DefaultRules, in default_rules.yaml) say exactly which
// exceptions and lines map to which type; the notable choices:
//
//   - Out of memory: torch.cuda.OutOfMemoryError, and any exception whose
//     message says "CUDA out of memory" or "CUDA error: out of memory"
//     (older PyTorch raises RuntimeError), is python_library/OutOfMemory.
//   - transformers' "OSError: x is not a local folder and is not a valid
//     model identifier" is python/OSError: the exception printed last is
//     OSError, even when it was raised from an HFValidationError.
//     HFValidationError is reported only when it ends the last traceback.
//   - TabError counts as IndentationError (its base class).
//   - Execution Timeout is recognised from harness markers only (a log
//     cannot show a time cap otherwise): rdeval's "rdeval: timeout after
//     12h0m0s"; GNU timeout's "timeout: sending signal TERM to command …"
//     and "timeout: the monitored command dumped core"; exit status 124
//     ("exit code 124", "exit status: 124", "exited with code 124",
//     "returned non-zero exit status 124"); "Execution Timeout" anywhere in
//     a line; a line that is just "TIMEOUT", starts with the tag
//     "[TIMEOUT]", or starts with "TIMEOUT: " and a word (not "TIMEOUT:
//     3600", a printed setting); Slurm's "CANCELLED AT … DUE TO TIME
//     LIMIT".
//   - Empty patch is recognised from a harness line that starts (after
//     optional "[tag]" prefixes and an ERROR:/error:/FATAL: word) with
//     "empty patch" or "patch is empty", and git apply's "error: No valid
//     patches in input".
//
// # How a run's primary error is chosen
//
// Lines end at LF, CRLF or a lone CR: progress bars (pytest, tqdm) redraw
// with CR, so "[ 50%]\rValueError: x" is two lines, the second an
// exception line. Line numbers count LF lines (as grep -n does); the CR
// segments of one LF line share its number.
//
// Lines that merely mention errors ("0 errors", "error_rate=0.1", a logged
// UserWarning) count for nothing: only the exception line that ends a
// Python traceback and lines that a line rule matches do. Tracebacks are
// "Traceback (most recent call last):" blocks: the header, indented frame
// and source lines, then the unindented "Name: message" line that ends it.
// A prefix before the header ("[rank0]: ", "Original ") is stripped from
// the block's lines; up to three interleaved unindented lines are skipped.
// Python's report of a SyntaxError in the script it runs, which starts at
// `  File "x.py", line 41` without a header, counts too.
//
// Precedence: a timeout marker beats a traceback, which beats a bash (or
// other line-rule) error. Among timeout markers and among line-rule errors
// the first in the run wins (the first shell error is usually the cause of
// the ones after it); among tracebacks the last wins, so for chained
// exceptions ("During handling of the above exception, another exception
// occurred:", "The above exception was the direct cause of the following
// exception:") the primary is the one printed last.
//
// Wrapped exceptions: an exception that reports a child process's failure
// (subprocess.CalledProcessError from a launcher, torchrun's
// ChildFailedError, torch.multiprocessing's ProcessExitedException: rules
// with defer: true) says nothing about the cause, which is the child's
// traceback printed before it. Such a traceback therefore yields to the
// last traceback before it in the run that is not itself deferring; with
// none it is reported as python_unlisted/CalledProcessError (etc.). A
// CalledProcessError for exit status 124 is a timeout (a timeout marker).
// Frameworks that re-raise with the child's traceback in the message
// (torch.multiprocessing's ProcessRaisedException, the DataLoader's
// "Original Traceback") print the child's traceback last, so it wins
// without a rule.
//
// Limits: a traceback that the program caught, logged and survived still
// counts (a log cannot tell); when a run has several logs, "first" and
// "last" follow the order in which they are given to Classifier.Scan.
//
// Speed: every line passes through one Aho–Corasick automaton of the
// literals that line-rule patterns require (derived from the regular
// expressions; ASCII case-insensitive) and the traceback header; a line
// rule's regular expression runs only on lines holding one of its
// literals. A pattern without a required literal (e.g. `^\s*$`) runs on
// every line.
//
// # Rules files
//
// LoadRules reads a YAML list of rules. Each rule has the fields group,
// type, pattern (a Go regular expression, RE2 syntax) and kind, and
// optionally defer:
//
//	# my_rules.yaml
//	- group: python_library
//	  type: OutOfMemory
//	  kind: traceback            # matched against "Name: message" of the last exception
//	  pattern: 'XlaRuntimeError: RESOURCE_EXHAUSTED'
//	- group: python_unlisted
//	  type: Launcher
//	  kind: traceback
//	  pattern: '^LaunchFailed\b'
//	  defer: true                # a wrapper: yields to the child's traceback
//	- group: bash
//	  type: disk full
//	  kind: line                 # matched against every log line
//	  pattern: 'No space left on device'
//	- {group: python_other, type: ValidationError, kind: traceback, pattern: '^ValidationError\b'}
//
// For kind traceback the pattern sees "Name: message" where Name is the
// last dotted component of the exception's name ("OutOfMemoryError:
// CUDA out of memory. …" for torch.cuda.OutOfMemoryError), or "Name"
// alone when there is no message; only the first line of the message. For
// kind line it sees the whole line without its line ending. Rules are
// tried in file order. A line rule of group "timeout" has timeout
// precedence. Group "none" is reserved. An unknown field, a missing field,
// an unknown kind, defer on a line rule or a pattern that does not compile
// is an error naming the rule by its 1-based position and line, e.g.
// `rule 3 (line 12): unknown field "patern" (want group, type, pattern,
// kind, defer)`. Combine(user, DefaultRules()) tries a user's rules
// before the built-in ones.
//
// # Implicit errors
//
// An implicit error is one where the code ran but the result is wrong;
// the paper found them by hand (logic versus value errors, about 2:1).
// LoadAnnotations reads such hand annotations from a CSV file with the
// header run_id,category,difficulty,note (category logic, value or other;
// difficulty easy, medium, hard or empty), and SummarizeAnnotations counts
// them.
package errtax
