#!/usr/bin/env python3
"""Writes every documented C++ snippet into one program that runs them all.

Snippets are the indented example blocks (lines "//   ...", three or more
spaces after the slashes) of each header's file comment (the comment the
file starts with), and the ```cpp blocks of Markdown files. Each snippet
becomes the body of a function of its own, after `using namespace ember;`,
with #line directives so that a compile error names the documented file and
line; its `#include` lines go to the top of the program. A declaration whose
trailing comment claims its value ("// [[4.]]") is checked against it (see
DocClaims.h). main() runs every snippet and fails if one throws (naming it). One translation unit, so all of
them cost one compile and one link.

usage: extract_snippets.py OUTPUT.cpp FILE...
"""

import os
import re
import sys


def header_snippets(path, lines):
    """(first line number, lines) of each example block of the file comment."""
    snippets, block, start = [], [], 0
    for number, line in enumerate(lines, 1):
        if not line.startswith("//"):
            break  # the file comment ends at the first line that is not one
        if re.match(r"//   ", line):
            if not block:
                start = number
            block.append("  " + line[2:])  # keeps the columns of the header
        elif block:
            snippets.append((start, block))
            block = []
    if block:
        snippets.append((start, block))
    return snippets


def markdown_snippets(path, lines):
    """(first line number, lines) of each ```cpp block."""
    snippets, block, start, indent = [], None, 0, ""
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^(\s*)```(\w*)\s*$", line)
        if block is None:
            if fence and fence.group(2) in ("cpp", "c++"):
                block, start, indent = [], number + 1, fence.group(1)
        elif fence:
            snippets.append((start, block))
            block = None
        else:
            block.append("  " + (line[len(indent):] if line.startswith(indent) else line.lstrip()))
    if block is not None:
        sys.exit(f"{path}:{start - 1}: unterminated ```cpp block")
    return snippets


# A comment claiming a declaration's value: "// 2.5", "// [[1 0] [0 1]]",
# "// about [0.417 0.197]", "// {2, 4, 6}, copied back", "// 1. (why)".
CLAIM = re.compile(r"^(?:about\s+)?(-?\d[\d.]*(?:e[-+]?\d+)?f?|[\[{][-\d\s.,+eEf\[\]{}]*[\]}])"
                   r"(?:$|,\s|\s\(|:\s)")
STATEMENT_END = re.compile(r"^(.*;)\s*//\s?(.*)$")
BLOCK_START = re.compile(r"^\s*(?:if|for|while|else|try|do|switch|\{|\})\b")
DECLARED = re.compile(r"^\s*(?:[\w:<>,\s]+?\s+)?(\w+)\s*=[^=]")


def with_claims_checked(block, where_line):
    """The lines of `block`, each statement whose value a trailing comment
    claims followed (on the same line) by a docClaim() call checking it."""
    out, statement = [], ""
    for offset, line in enumerate(block):
        end = STATEMENT_END.match(line)
        code = (end.group(1) if end else line.split("//")[0]).rstrip()
        statement += code.strip() + " "
        opens_block = code.endswith("{") and (BLOCK_START.match(statement) or "=" not in statement)
        if code.endswith(";") or opens_block:
            claim = CLAIM.match(end.group(2).strip()) if end else None
            name = DECLARED.match(statement)
            if claim and name:  # the check goes before the comment
                line = (f'{end.group(1)} docclaims::docClaim("{where_line(offset)}", '
                        f'{name.group(1)}, "{claim.group(1)}");  // {end.group(2)}')
            statement = ""
        out.append(line)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    output, sources = sys.argv[1], sys.argv[2:]
    includes = ["#include \"ember/ember.h\"", "#include \"DocClaims.h\"", "#include <cstdio>",
                "#include <exception>",
                "#include <iostream>", "#include <iterator>", "#include <optional>", "#include <tuple>",
                "#include <vector>"]
    functions, table = [], []
    for path in sources:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        found = (markdown_snippets if path.endswith(".md") else header_snippets)(path, lines)
        for start, block in found:
            block = with_claims_checked(
                block, lambda offset, start=start: f"{os.path.relpath(path)}:{start + offset}")
            body = []
            for offset, line in enumerate(block):
                if line.strip().startswith("#include"):
                    if line.strip() not in includes:
                        includes.append(line.strip())
                    body.append("")  # keeps the line numbers
                else:
                    body.append(line)
            index = len(functions)
            where = f"{os.path.relpath(path)}:{start}"
            functions.append(
                f"static void snippet{index}() {{ // {where}\n"
                f"  using namespace ember;\n"
                f"#line {start} \"{path}\"\n" + "\n".join(body) + "\n}\n")
            table.append(f"    {{\"{where}\", snippet{index}}},")
    if not functions:
        sys.exit("extract_snippets.py: no snippets found in " + " ".join(sources))
    program = [
        "// Generated by unittests/DocSnippets/extract_snippets.py from the documented",
        "// examples of " + ", ".join(os.path.relpath(s) for s in sources) + ".",
        "// Do not edit: edit the documentation.",
        *includes, "",
        "#if defined(__clang__)",
        "#pragma clang diagnostic ignored \"-Wunused-variable\"",
        "#pragma clang diagnostic ignored \"-Wunused-but-set-variable\"",
        "#endif", "",
        *functions,
        "int main() {",
        "  struct Snippet { const char *where; void (*run)(); };",
        "  const Snippet snippets[] = {",
        *table,
        "  };",
        "  int failed = 0;",
        "  for (const Snippet &snippet : snippets) {",
        "    std::printf(\"snippet %s\\n\", snippet.where);",
        "    std::fflush(stdout);",
        "    try {",
        "      snippet.run();",
        "    } catch (const std::exception &e) {",
        "      std::fprintf(stderr, \"%s: the documented snippet threw: %s\\n\", snippet.where, e.what());",
        "      ++failed;",
        "    }",
        "  }",
        "  std::printf(\"%d of %zu snippets ran without an error\\n\",",
        "              static_cast<int>(std::size(snippets)) - failed, std::size(snippets));",
        "  return failed ? 1 : 0;",
        "}",
    ]
    text = "\n".join(program) + "\n"
    # Rewrite only on change, so that the build does not recompile for nothing.
    if os.path.exists(output):
        with open(output, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
