"""Print CPython ast node spans as byte offsets, for the differential test.

Usage: python3 pyspans.py FILE...
For each file prints "FILE <path>", then "<Type> <start> <end>" for every
node with a position, except arg nodes and the insides of f-strings; or
"ERROR <message>" when CPython cannot parse the file. Decorated definitions
start at their first "@".
"""
import ast
import sys


def line_starts(src):
    starts = [0]
    for i, b in enumerate(src):
        if b == 0x0A:
            starts.append(i + 1)
    return starts


def main():
    out = sys.stdout
    for path in sys.argv[1:]:
        out.write("FILE %s\n" % path)
        with open(path, "rb") as f:
            src = f.read()
        try:
            tree = ast.parse(src, path)
        except (SyntaxError, ValueError) as e:
            out.write("ERROR %s\n" % e)
            continue
        starts = line_starts(src)

        def off(line, col):
            return starts[line - 1] + col

        stack = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.JoinedStr):
                children = []
            else:
                children = list(ast.iter_child_nodes(node))
            stack.extend(children)
            if isinstance(node, ast.arg) or getattr(node, "end_col_offset", None) is None:
                continue
            start = off(node.lineno, node.col_offset)
            end = off(node.end_lineno, node.end_col_offset)
            decos = getattr(node, "decorator_list", None)
            if decos:
                d = decos[0]
                start = off(d.lineno, d.col_offset)
                while start > 0 and src[start - 1 : start] != b"@":
                    start -= 1
                start -= 1
            out.write("%s %d %d\n" % (type(node).__name__, start, end))


main()
