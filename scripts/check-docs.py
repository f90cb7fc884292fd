#!/usr/bin/env python3
"""The documentation's links, checked on the tree (well under a second; ctest's docs_links):

  links     every relative link and image in README.md and docs/*.md names a file or folder of
            the repository, and its #anchor (or a bare #anchor) a heading of the page it names,
            by GitHub's rules: the heading's text, lower-cased, without punctuation other than
            hyphens and underscores, spaces made hyphens; a repeated heading gets -1, -2, ...
  paths     every repository path written in backticks (outside code blocks) exists: a code span
            whose first word starts with one of PREFIXES; `*` and `{a,b}` in it are patterns that
            must match, a span with a placeholder (<name>, ..., $VAR) is not a path

  citations every `docs/PAGE.md#anchor` that a tracked source file outside docs/ cites (code
            comments cite docs/decisions.md's entries) names a page and one of its headings

Links with a scheme (https:, mailto:) are not fetched. Exits 1 with one line per failure,
FILE:LINE: what is wrong.  Usage: scripts/check-docs.py [FILE.md ...] (default: README.md and
docs/*.md)
"""
import glob
import os
import re
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIXES = ("scripts/", "config/", "bench/", "docs/", "tests/", "apps/", "engine/", "kernels/",
            "models/")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
PLACEHOLDER = re.compile(r"<[^>]*>|\.\.\.|…|\$|%")


def without_fences(text):
    """The text with every fenced code block's lines blanked (line numbers kept)."""
    lines, fence = text.split("\n"), None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence is None and match:
            fence, lines[i] = match.group(1)[0] * len(match.group(1)), ""
        elif fence is not None:
            if match and match.group(1).startswith(fence):
                fence = None
            lines[i] = ""
    return "\n".join(lines)


def code_spans(text):
    """(offset, content) of each inline code span; a span does not cross a blank line."""
    for match in CODE_SPAN.finditer(text):
        if "\n\n" not in match.group(2):
            yield match.start(), match.group(2).strip()


def blank_code_spans(text):
    return CODE_SPAN.sub(lambda m: m.group(0) if "\n\n" in m.group(2)
                         else re.sub(r"[^\n]", " ", m.group(0)), text)


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    # Emphasis markers go, outside code spans only (`_x_` in code keeps its underscores).
    parts = re.split(r"(`+[^`]*`+)", text)
    text = "".join(part.strip("`") if part.startswith("`")
                   else re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", part) for part in parts)
    text = "".join(c for c in text.lower() if c.isalnum() or c in "-_ " or _is_mark(c))
    return text.replace(" ", "-")


def _is_mark(c):
    import unicodedata
    return unicodedata.category(c).startswith("M")


_anchors = {}


def anchors(path):
    """The anchors a Markdown page defines."""
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            text = without_fences(f.read())
        found, seen = set(), {}
        for line in text.split("\n"):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
            found.update(HTML_ANCHOR.findall(line))
        _anchors[path] = found
    return _anchors[path]


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def check_link(page, target):
    """What is wrong with a link from page to target, or None."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
        return None  # a URL: not fetched
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path)
    resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
    if not os.path.exists(resolved):
        return "link to %s: no such file" % target
    if not os.path.realpath(resolved).startswith(ROOT + os.sep):
        return "link to %s: outside the repository" % target
    if anchor:
        if not resolved.endswith(".md") or os.path.isdir(resolved):
            return "link to %s: an anchor on a page that is not Markdown" % target
        if urllib.parse.unquote(anchor) not in anchors(resolved):
            return "link to %s: %s has no heading #%s" % (
                target, os.path.relpath(resolved, ROOT), anchor)
    return None


def expand_braces(pattern):
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[:match.start()], pattern[match.end():]
    return [p for choice in match.group(1).split(",") for p in expand_braces(head + choice + tail)]


def check_path(span):
    """What is wrong with a code span that names a repository path, or None."""
    word = span.split()[0] if span.split() else ""
    if not word.startswith(PREFIXES) or PLACEHOLDER.search(word):
        return None
    word = word.rstrip(".,;:)")
    missing = [p for p in expand_braces(word)
               if not (glob.glob(os.path.join(ROOT, p)) if any(c in p for c in "*?[")
                       else os.path.exists(os.path.join(ROOT, p)))]
    return "`%s`: no such path in the repository" % word if missing else None


def check_page(page):
    with open(page, encoding="utf-8") as f:
        text = without_fences(f.read())
    name = os.path.relpath(page, ROOT)
    found = [(offset, check_path(span)) for offset, span in code_spans(text)]
    prose = blank_code_spans(text)
    targets = [(m.start(), m.group(2)) for m in LINK.finditer(prose)]
    targets += [(m.start(), m.group(1)) for m in REFERENCE.finditer(prose)]
    found += [(offset, check_link(page, target) if target else "an empty link")
              for offset, target in targets]
    return ["%s:%d: %s" % (name, line_of(text, offset), problem)
            for offset, problem in sorted(found) if problem]


CITATION = re.compile(r"docs/([\w.-]+\.md)#([\w-]+)")


def check_citations():
    """Each docs/PAGE.md#anchor cited by a tracked file outside docs/ (and not Markdown)."""
    import subprocess
    try:
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                               check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):  # a copy without git (the GPU machine's)
        files = [os.path.relpath(os.path.join(d, f), ROOT)
                 for folder in PREFIXES + ("base/",)
                 for d, _, names in os.walk(os.path.join(ROOT, folder)) for f in names]
    failures = []
    for name in files:
        if not name or name.startswith("docs/") or name.endswith(".md") or \
                name == "scripts/check-docs.py":
            continue
        try:
            with open(os.path.join(ROOT, name), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for m in CITATION.finditer(text):
            page = os.path.join(ROOT, "docs", m.group(1))
            if not os.path.isfile(page):
                failures.append("%s:%d: cites docs/%s, which does not exist" % (
                    name, line_of(text, m.start()), m.group(1)))
            elif m.group(2) not in anchors(page):
                failures.append("%s:%d: cites docs/%s#%s: no such heading there" % (
                    name, line_of(text, m.start()), m.group(1), m.group(2)))
    return failures


def main(argv):
    pages = [os.path.abspath(p) for p in argv] or (
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))))
    failures = [f for page in pages for f in check_page(page)]
    if not argv:
        failures += check_citations()
    for failure in failures:
        print(failure)
    if failures:
        print("check-docs: %d broken link(s) or path(s) in %d page(s)" % (len(failures), len(pages)))
        return 1
    print("check-docs: %d pages, every link, anchor and path found%s" % (
        len(pages), "" if argv else "; every docs/ citation in the sources too"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
