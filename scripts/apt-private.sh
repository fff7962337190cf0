# Downloads pinned Debian packages through a private apt configuration;
# sourced, never run. The URIs and keyring are those of this machine's own
# Debian stanza (the one carrying its release codename, in
# /etc/apt/sources.list.d/*.sources), so the repository names no mirror, and
# the system's apt state (sources, lists, cache) is left alone.

# private_apt_sources SUITE COMPONENTS: the deb822 stanza(s) on stdout.
private_apt_sources() {
	local suite=$1 components=$2 codename f
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	for f in /etc/apt/sources.list.d/*.sources; do
		awk -v codename="$codename" -v suite="$suite" -v comps="$components" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " codename " ") && uris != "")
				printf "Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\n%s\n\n", uris, suite, comps, signed
			uris = suites = types = signed = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
		/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
		/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
		/^Signed-By:/ { signed = $0 }
		END { flush() }
		' "$f"
	done | awk 'BEGIN { RS = ""; ORS = "\n\n" } !seen[$0]++'
}

# private_apt_download APT_DIR SUITE COMPONENTS DEST PKG=VERSION...:
# refreshes the private lists under APT_DIR and downloads the packages into
# DEST. Returns non-zero (with apt's message on stderr) when a step fails;
# the caller names the step and checks the checksums.
private_apt_download() {
	local apt=$1 suite=$2 components=$3 dest=$4
	local -a opts
	shift 4
	mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$dest"
	rm -f "$apt/sources.list.d/"*.sources
	private_apt_sources "$suite" "$components" >"$apt/sources.list.d/ember.sources"
	if ! grep -q '^URIs:' "$apt/sources.list.d/ember.sources"; then
		echo "no Debian stanza for this release in /etc/apt/sources.list.d/*.sources" >&2
		return 1
	fi
	opts=(-o "Dir::Etc::SourceParts=$apt/sources.list.d" -o Dir::Etc::SourceList=/dev/null
	      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	      -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	apt-get "${opts[@]}" -qq update || return 1
	(cd "$dest" && apt-get "${opts[@]}" -qq download "$@")
}
