#!/usr/bin/env python3
"""gen-completions.py FERRY [OUTDIR]: the bash, zsh and fish completions of
ferry, written from what FERRY --help and FERRY COMMAND --help say.

The help is the one table of commands and options: each command's options
are those its --help names (in its usage lines or its option list), each
option's argument is the word after it there (FILE, DIR, NAME, SIZE, ...).
What that word cannot say, the values an option takes, is in CHOICES below.
Writes OUTDIR/ferry.bash-completion, ferry.zsh-completion and
ferry.fish-completion (OUTDIR: the folder of this script).
tests/integration/t_examples.sh runs it and fails when a file it writes
differs from the one in examples/, so that they cannot drift apart.
"""
import os
import re
import subprocess
import sys

# Values of options, where the help names only a kind.
CHOICES = {
    "--storage-class": "STANDARD STANDARD_IA ONEZONE_IA INTELLIGENT_TIERING "
    "GLACIER_IR GLACIER DEEP_ARCHIVE REDUCED_REDUNDANCY",
    "--sse": "AES256 aws:kms aws:kms:dsse",
    "--acl": "private public-read public-read-write authenticated-read "
    "aws-exec-read bucket-owner-read bucket-owner-full-control",
    "--metadata-directive": "COPY REPLACE",
    "--part-size": "auto 5M 8M 16M 64M 128M",
    "--multipart-threshold": "5M 8M 16M 64M 256M 1G",
    "--memory": "64M 256M 1G",
    "--min-size": "1K 1M 8M 1G",
    "--max-size": "1K 1M 8M 1G",
    "--endpoint-url": "https:// http://",
    "--source-endpoint-url": "https:// http://",
}
# The kind of an argument, by the word that names it in the help.
KINDS = {"FILE": "file", "DIR": "dir", "PREFIX": "file", "PLAN": "file"}
PROFILE_OPTS = ("--profile", "--source-profile")
# Options whose argument is a file though the help names it otherwise.
FILE_OPTS = ("--sse-c-key", "--metrics-file")


def run(args):
    """The standard output of ferry with args; fails if it fails."""
    return subprocess.run(args, check=True, capture_output=True,
                          text=True).stdout


def commands(ferry):
    """The commands of ferry --help's usage lines, in their order, with
    the word each takes first when it has one (manifest info)."""
    seen = []
    for line in run([ferry, "--help"]).splitlines():
        m = re.match(r"(?:usage:)?\s+ferry ([a-z]+)(?: ([a-z]+))?\b", line)
        if m is None:
            if seen and not line.strip():
                break
            continue
        if m.group(1) not in [c for c, _ in seen]:
            seen.append((m.group(1), m.group(2) or ""))
    return seen


OPT = re.compile(r"(-[a-zA-Z]|--[a-z][a-z0-9-]*[a-z0-9])"
                 r"(?:[ =]([A-Z][A-Za-z0-9_/|:%.,=\[\]-]*|s3://\S*))?")


def bare(arg):
    """An option's argument word without the usage line's closing "]"."""
    arg = arg or ""
    while arg.endswith("]") and arg.count("]") > arg.count("["):
        arg = arg[:-1]
    return arg


def options(text):
    """{option: (argument word or "", description)} of one --help text:
    its usage lines' [--option ARG] and its option list's lines."""
    found = {}
    usage = True
    for line in text.splitlines():
        if usage and line.strip() and not re.match(r"(usage:)?\s", line):
            usage = False
        if usage:
            for m in OPT.finditer(line):
                found.setdefault(m.group(1), (bare(m.group(2)), ""))
            continue
        if not re.match(r"  -", line):
            continue
        # segments two spaces apart: options, then a description
        segs = re.split(r"\s{2,}", line.strip())
        opts = [s for s in segs if s.startswith("-")]
        desc = " ".join(s for s in segs if not s.startswith("-"))
        for seg in opts:
            # "-j, --jobs N": the short option takes the long one's N
            parts = [OPT.fullmatch(p.strip()) for p in seg.split(", ")]
            parts = [m for m in parts if m]
            for i, m in enumerate(parts):
                arg = bare(m.group(2))
                if not arg and len(m.group(1)) == 2 and i + 1 < len(parts):
                    arg = bare(parts[i + 1].group(2))
                found[m.group(1)] = (arg, desc)
    # "--source-*" names a family, not an option
    return {o: v for o, v in found.items() if not o.endswith("-")}


def kind(opt, arg):
    """How an option's argument is completed: file, dir, profile,
    choices, or none; "" for an option without one."""
    if not arg:
        return ""
    if opt in PROFILE_OPTS:
        return "profile"
    if opt in FILE_OPTS:
        return "file"
    if opt in CHOICES:
        return "choices"
    return KINDS.get(arg.split("|")[0], "none")


def table(ferry):
    """[(command, first word, {option: (arg, desc)})] for every command
    but help, whose argument is a command."""
    out = []
    for cmd, word in commands(ferry):
        if cmd == "help":
            continue
        out.append((cmd, word, options(run([ferry, cmd, "--help"]))))
    return out


def words(opts):
    return " ".join(sorted(opts))


BASH_HEAD = r'''# shellcheck shell=bash
# ferry.bash-completion: bash completion for ferry(1).
# Written by examples/gen-completions.py from "ferry COMMAND --help":
# change the help (sync/cli.c) and run "make completions", not this file.
#
# Install as /usr/share/bash-completion/completions/ferry (or source it
# from ~/.bashrc).  Completes the commands, the options of each, profile
# names from the AWS files after --profile and --source-profile, folders
# after --manifest, local folders (or an "s3://" to start a bucket URL)
# for the operands, and files for the plan of apply.  Bucket names and
# keys are not completed: that would need requests to the server.

# The profiles of the AWS shared credentials and config files.
_ferry_profiles()
{
	local creds=${AWS_SHARED_CREDENTIALS_FILE:-$HOME/.aws/credentials}
	local conf=${AWS_CONFIG_FILE:-$HOME/.aws/config}

	{
		[ -r "$creds" ] && sed -n 's/^[[:space:]]*\[\([^]]*\)\].*/\1/p' "$creds"
		[ -r "$conf" ] && sed -n -e 's/^[[:space:]]*\[profile[[:space:]]\{1,\}\([^]]*\)\].*/\1/p' \
			-e 's/^[[:space:]]*\[\(default\)\].*/\1/p' "$conf"
	} 2>/dev/null | sort -u
}

_ferry()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=''
	local cmd='' i opts

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		@CMDS@)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done
	if [ -z "$cmd" ]; then
		mapfile -t COMPREPLY < <(compgen -W "@CMDWORDS@ --help --version" -- "$cur")
		return 0
	fi
	if [ "$cmd" = help ]; then
		[ "$prev" = help ] &&
			mapfile -t COMPREPLY < <(compgen -W "@CMDWORDS_NOHELP@" -- "$cur")
		return 0
	fi

	# The argument of an option.
	case $prev in
'''

BASH_TAIL = r'''	esac

	# Inside an s3:// URL, which bash splits at ':': nothing to offer.
	case $prev$cur in
	*:*) return 0 ;;
	esac

	case $cur in
	-*)
		case $cmd in
@OPTARMS@
		esac
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
		;;
	esac

	# apply takes a plan file.
	if [ "$cmd" = apply ]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
	fi

	# a command's first word (manifest info)
	case $cmd:$prev in
@WORDARMS@
	esac

	# Operands: "s3://" to start a bucket URL; for sync, plan and verify,
	# local folders too.
	compopt -o nospace 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -W "s3://" -- "$cur")
	if [ "$cmd" = sync ] || [ "$cmd" = plan ] || [ "$cmd" = verify ]; then
		compopt -o filenames 2>/dev/null
		local d
		while IFS= read -r d; do
			COMPREPLY+=("$d")
		done < <(compgen -d -- "$cur")
	fi
	return 0
}

complete -F _ferry ferry
'''


def bash(tab):
    """The bash completion."""
    allopts = {}
    for _, _, opts in tab:
        for o, (arg, _) in opts.items():
            allopts[o] = kind(o, arg)
    by = {}
    for o, k in sorted(allopts.items()):
        if k:
            by.setdefault(k, []).append(o)
    arms = []
    if "dir" in by:
        arms.append("\t%s)\n\t\tcompopt -o filenames 2>/dev/null\n"
                    "\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
                    "\t\treturn 0\n\t\t;;" % " | ".join(by["dir"]))
    if "file" in by:
        arms.append("\t%s)\n\t\tcompopt -o filenames 2>/dev/null\n"
                    "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
                    "\t\treturn 0\n\t\t;;" % " | ".join(by["file"]))
    if "profile" in by:
        arms.append("\t%s)\n\t\tmapfile -t COMPREPLY < <(compgen -W "
                    "\"$(_ferry_profiles)\" -- \"$cur\")\n"
                    "\t\treturn 0\n\t\t;;" % " | ".join(by["profile"]))
    for o in by.get("choices", []):
        nospace = "\t\tcompopt -o nospace 2>/dev/null\n" \
            if CHOICES[o].endswith("//") else ""
        arms.append("\t%s)\n%s\t\tmapfile -t COMPREPLY < <(compgen -W "
                    "\"%s\" -- \"$cur\")\n\t\treturn 0\n\t\t;;"
                    % (o, nospace, CHOICES[o]))
    if "none" in by:
        arms.append("\t%s)\n\t\treturn 0\n\t\t;;" % " | ".join(by["none"]))
    cmds = [c for c, _, _ in tab]
    optarms = "\n".join("\t\t%s) opts=\"%s\" ;;" % (c, words(opts))
                        for c, _, opts in tab)
    wordarms = "\n".join(
        "\t%s:%s)\n\t\tmapfile -t COMPREPLY < <(compgen -W \"%s\" -- "
        "\"$cur\")\n\t\treturn 0\n\t\t;;" % (c, c, w)
        for c, w, _ in tab if w)
    head = BASH_HEAD.replace("@CMDS@", " | ".join(cmds + ["help"]))
    head = head.replace("@CMDWORDS_NOHELP@", " ".join(cmds))
    head = head.replace("@CMDWORDS@", " ".join(cmds + ["help"]))
    tail = BASH_TAIL.replace("@OPTARMS@", optarms)
    tail = tail.replace("@WORDARMS@", wordarms)
    return head + "\n".join(arms) + "\n" + tail


def zquote(s):
    """s inside a zsh _arguments spec's [description]."""
    return s.replace("\\", "\\\\").replace("[", "\\[").replace(
        "]", "\\]").replace("'", "'\\''").replace(":", "\\:")


def zaction(o, arg):
    k = kind(o, arg)
    if k == "":
        return ""
    name = zquote(arg.lower())
    if k == "file":
        return ":%s:_files" % name
    if k == "dir":
        return ":%s:_files -/" % name
    if k == "profile":
        return ":%s:_ferry_profiles" % name
    if k == "choices":
        return ":%s:(%s)" % (name, CHOICES[o])
    return ":%s: " % name


def zsh(tab):
    """The zsh completion (a #compdef function file, _ferry)."""
    out = ['#compdef ferry',
           '# ferry.zsh-completion: zsh completion for ferry(1), installed',
           '# as _ferry in a folder of $fpath (vendor-completions on Debian).',
           '# Written by examples/gen-completions.py from "ferry COMMAND'
           ' --help":',
           '# change the help (sync/cli.c) and run "make completions".',
           '',
           '_ferry_profiles() {',
           '\tlocal -a p',
           '\tlocal creds=${AWS_SHARED_CREDENTIALS_FILE:-$HOME/.aws/'
           'credentials}',
           '\tlocal conf=${AWS_CONFIG_FILE:-$HOME/.aws/config}',
           '\tp=(${(f)"$( { [[ -r $creds ]] && sed -n \'s/^[[:space:]]*'
           '\\[\\([^]]*\\)\\].*/\\1/p\' $creds;',
           '\t\t[[ -r $conf ]] && sed -n -e \'s/^[[:space:]]*\\[profile'
           '[[:space:]]\\{1,\\}\\([^]]*\\)\\].*/\\1/p\' \\',
           '\t\t\t-e \'s/^[[:space:]]*\\[\\(default\\)\\].*/\\1/p\' $conf'
           '; } 2>/dev/null | sort -u)"})',
           '\tcompadd -a p',
           '}',
           '',
           '_ferry_operand() {',
           '\t_alternative \'urls:bucket URL:compadd -S "" s3://\' '
           '\'folders:folder:_files -/\'',
           '}',
           '',
           '_ferry() {',
           '\tlocal curcontext=$curcontext state line',
           '\tlocal -a cmds',
           '\tcmds=(']
    for c, _, _ in tab:
        out.append("\t\t'%s:see ferry-%s(1)'" % (c, c))
    out.append("\t\t'help:the manual of a command'")
    out += ['\t)',
            '\t_arguments -C \\',
            "\t\t'(- *)'{-h,--help}'[the short help]' \\",
            "\t\t'(- *)--version[the version]' \\",
            "\t\t'1:command:->cmd' '*::arg:->args'",
            '\tcase $state in',
            "\tcmd) _describe -t commands 'ferry command' cmds ;;",
            '\targs)',
            '\t\tcase $words[1] in',
            "\t\thelp) _describe -t commands 'ferry command' cmds ;;"]
    for c, w, opts in tab:
        specs = []
        for o, (arg, desc) in sorted(opts.items()):
            text = "[%s]" % zquote(desc) if desc else ""
            specs.append("'%s%s%s'" % (o, text, zaction(o, arg)))
        if w:
            specs.append("'1:subcommand:(%s)'" % w)
            specs.append("'*:operand:_ferry_operand'")
        elif c == "apply":
            specs.append("'1:plan file:_files'")
        else:
            specs.append("'*:operand:_ferry_operand'")
        out.append('\t\t%s) _arguments -s \\' % c)
        out += ['\t\t\t%s \\' % s for s in specs[:-1]]
        out.append('\t\t\t%s ;;' % specs[-1])
    out += ['\t\tesac ;;', '\tesac', '}', '', '_ferry "$@"', '']
    return "\n".join(out)


def fquote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(tab):
    """The fish completion (ferry.fish)."""
    cmds = [c for c, _, _ in tab]
    out = ['# ferry.fish-completion: fish completion for ferry(1), '
           'installed as',
           '# ferry.fish in vendor_completions.d.',
           '# Written by examples/gen-completions.py from "ferry COMMAND'
           ' --help":',
           '# change the help (sync/cli.c) and run "make completions".',
           '',
           'function __ferry_profiles',
           '    set -l creds $HOME/.aws/credentials',
           '    set -q AWS_SHARED_CREDENTIALS_FILE; and set creds '
           '$AWS_SHARED_CREDENTIALS_FILE',
           '    set -l conf $HOME/.aws/config',
           '    set -q AWS_CONFIG_FILE; and set conf $AWS_CONFIG_FILE',
           "    begin",
           "        test -r $creds; and sed -n 's/^[[:space:]]*\\[\\([^]]*"
           "\\)\\].*/\\1/p' $creds",
           "        test -r $conf; and sed -n -e 's/^[[:space:]]*\\[profile"
           "[[:space:]]\\{1,\\}\\([^]]*\\)\\].*/\\1/p' -e "
           "'s/^[[:space:]]*\\[\\(default\\)\\].*/\\1/p' $conf",
           '    end 2>/dev/null | sort -u',
           'end',
           '',
           'complete -c ferry -f',
           "complete -c ferry -n __fish_use_subcommand -s h -l help "
           "-d 'the short help'",
           "complete -c ferry -n __fish_use_subcommand -l version "
           "-d 'the version'"]
    for c in cmds:
        out.append("complete -c ferry -n __fish_use_subcommand -a %s "
                   "-d 'see ferry-%s(1)'" % (c, c))
    out.append("complete -c ferry -n __fish_use_subcommand -a help "
               "-d 'the manual of a command'")
    out.append("complete -c ferry -n '__fish_seen_subcommand_from help' "
               "-a '%s'" % " ".join(cmds))
    for c, w, opts in tab:
        cond = "'__fish_seen_subcommand_from %s'" % c
        if w:
            out.append("complete -c ferry -n %s -a %s" % (cond, w))
        if c == "apply":
            out.append("complete -c ferry -n %s -F" % cond)
        elif not w:
            out.append("complete -c ferry -n %s -a 's3://'" % cond)
            if c != "ls":
                out.append("complete -c ferry -n %s -a '(__fish_complete_"
                           "directories)'" % cond)
        for o, (arg, desc) in sorted(opts.items()):
            flag = "-s %s" % o[1] if len(o) == 2 else "-l %s" % o[2:]
            k = kind(o, arg)
            extra = ""
            if k:
                extra = " -r"
            if k == "file":
                extra += " -F"
            elif k == "dir":
                extra += " -a '(__fish_complete_directories)'"
            elif k == "profile":
                extra += " -a '(__ferry_profiles)'"
            elif k == "choices":
                extra += " -a %s" % fquote(CHOICES[o])
            if desc:
                extra += " -d %s" % fquote(desc)
            out.append("complete -c ferry -n %s %s%s" % (cond, flag, extra))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: gen-completions.py FERRY [OUTDIR]")
    tab = table(sys.argv[1])
    outdir = sys.argv[2] if len(sys.argv) == 3 else \
        os.path.dirname(os.path.abspath(__file__))
    for name, text in (("ferry.bash-completion", bash(tab)),
                       ("ferry.zsh-completion", zsh(tab)),
                       ("ferry.fish-completion", fish(tab))):
        with open(os.path.join(outdir, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
