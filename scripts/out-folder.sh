# Sourced by scripts that write a scratch folder: `out_folder SCRIPT NAMED DEFAULT` sets `out`
# to NAMED, which must be new or empty (a folder the user names is never emptied: it may hold
# what is not ours; otherwise exit 2), or, when NAMED is empty, to DEFAULT, which is replaced.
out_folder() {
    if [ -n "$2" ]; then
        out=$2
        if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
            echo "$1: $out exists and is not empty; name a new or empty folder" >&2
            exit 2
        fi
    else
        out=$3
        rm -rf "$out"
    fi
    mkdir -p "$out"
}
