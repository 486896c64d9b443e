# zsh -f zcomplete.zsh COMPLETION WORDS: what zsh's completion system
# offers for the command line WORDS (Tab at its end), one a line, with
# COMPLETION installed as _ferry.  zsh completes only at a terminal:
# an interactive zsh runs in a pseudo-terminal (zpty), and compadd is
# wrapped to print what it is given.
zmodload zsh/zpty || exit 1
dir=$(mktemp -d) || exit 1
cp "$1" "$dir/_ferry" || exit 1
zpty z zsh -f -i
zpty -w z "PS1=''; RPROMPT=''; fpath=($dir \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compprefuncs=(wrap); wrap() { compadd() { local -a a; builtin compadd -O a \"\$@\"; print -rl -- \"<<\"\${^a}\">>\"; builtin compadd \"\$@\" } }"
zpty -w z "print -- READY"
while zpty -r z line; do [[ $line == *READY* && $line != *print* ]] && break; done
zpty -w -n z "$2"$'\t'
sleep 1
zpty -w -n z $'\C-c'
zpty -w z "print -- DONE"
while zpty -r -t z line; do
	[[ $line == *DONE* && $line != *print* ]] && break
	[[ $line == *'<<'*'>>'* ]] && { l=${line#*<<}; print -r -- "${l%%>>*}"; }
done
zpty -d z
rm -rf "$dir"
