#!/usr/bin/env python3
"""Assembles the viewer page template: viewer.html with viewer.css, the emscripten module
(one JS file with the wasm inlined) and app.js put inline, so a page `lockstep view` fills in
opens from disk with no server and no network. Usage: assemble.py WEB_DIR MODULE_JS OUT_HTML"""
import os
import sys


def inline_script(text):
    # Inside <script>, the only sequence that ends the element early is "</script".
    return text.replace("</script", "<\\/script")


def main():
    web, module_js, out = sys.argv[1:4]
    read = lambda p: open(p, encoding="utf-8").read()
    page = read(os.path.join(web, "viewer.html"))
    parts = {
        "/*@STYLE@*/": read(os.path.join(web, "viewer.css")),
        "/*@MODULE@*/": inline_script(read(module_js)),
        "/*@APP@*/": inline_script(read(os.path.join(web, "app.js"))),
    }
    for key, value in parts.items():
        if page.count(key) != 1:
            sys.exit(f"assemble.py: {key} must appear exactly once in viewer.html")
        page = page.replace(key, value)
    # `lockstep view` replaces this placeholder; it must be unique in the finished template.
    if page.count("@LOCKSTEP_DATA@") != 1:
        sys.exit("assemble.py: @LOCKSTEP_DATA@ must appear exactly once in the assembled page")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
