"""Write stage, the 404 page: make it work wherever the site is served from.

A host shows ``404.html`` for any missing address, at any depth, so the page
cannot use links relative to itself; MkDocs therefore writes it with absolute
links under the path of ``site_url`` (``/`` without one), which breaks on a
GitHub Pages project site (served under ``/<repo>/``) and from ``file://``:
the theme's CSS and scripts are not found and the page renders unstyled.

``portable_404`` rewrites those links relative to the site root (stylesheets
and scripts are written by ``document.write`` so that they load only once the
base is known) and adds, early in ``<head>``, a small script that finds the site root from the page's own
address and sets ``<base href>`` to it, so every relative link and asset
resolves against the root, and patches the theme's configuration (its base
address and search worker) to match. The root is, in order: the folder of the
file (``file://``); the path of ``--site-url`` when the address lies under it;
the part before the first path segment naming one of the site's top-level
folders (``agents``, ``assets``, ``search``); the deepest parent folder holding
the site's stylesheet (asked with ``HEAD`` requests); else ``/``.

Called by ``output.build`` after MkDocs has written the site; pure text in,
text out.
"""

from __future__ import annotations

import json
import re

TOP_FOLDERS = ("agents", "assets", "search")
PROBE = "assets/stylesheets/halo.css"

_SCRIPT = """<script>(function(){var l=window.location,p=l.pathname,b=null,known=%(known)s,sub=%(sub)s;
if(l.protocol==="file:"){b=p.replace(/[^\\/]*$/,"")}
else if(sub!=="/"&&p.indexOf(sub)===0){b=sub}
else{var s=p.split("/");for(var i=1;i<s.length-1;i++){if(known.indexOf(s[i])>=0){b=s.slice(0,i).join("/")+"/";break}}
if(b===null){var d=p.replace(/[^\\/]*$/,"");while(d.length>0){try{var x=new XMLHttpRequest();x.open("HEAD",d+%(probe)s,false);x.send();if(x.status===200){b=d;break}}catch(e){}
if(d==="/")break;d=d.replace(/[^\\/]*\\/$/,"")}}}
if(b===null)b="/";window.__halo_base=new URL(b,l.href).href;var e=document.createElement("base");e.href=window.__halo_base;document.head.appendChild(e)})();</script>"""

_CONFIG_PATCH = """<script>(function(){var c=document.getElementById("__config");if(!c||!window.__halo_base)return;var d=JSON.parse(c.textContent);
d.base=window.__halo_base;if(d.search)d.search=new URL(d.search,window.__halo_base).href;c.textContent=JSON.stringify(d)})();</script>"""


_ASSET = re.compile(r'<link\b[^>]*\bhref="(?![a-z][a-z0-9+.-]*:|//|#)[^"]*"[^>]*>|<script\b[^>]*\bsrc="(?![a-z][a-z0-9+.-]*:|//)[^"]*"[^>]*></script>')


def portable_404(text: str, base_path: str = "/") -> str:
    """The 404 page with links relative to the site root and the runtime base script.

    ``base_path`` is the path of ``site_url`` (``/`` without one): the prefix
    MkDocs put in front of every link of the page.
    """
    prefix = base_path if base_path.endswith("/") else base_path + "/"
    text = re.sub(
        r'(\s(?:href|src)=")' + re.escape(prefix) + r'(?!/)',
        r"\1",
        text,
    )
    text = text.replace(f"__md_scope=new URL({json.dumps(prefix)},location)", "__md_scope=new URL(window.__halo_base||\"/\",location)")
    text = re.sub(r'("base": )"' + re.escape(prefix) + '"', r'\1"."', text)
    text = re.sub(r'("search": )"' + re.escape(prefix), r'\1"', text)
    # The browser's preload scanner fetches what the markup names before the
    # base is set (against the missing address); elements written by script
    # after the base is set are fetched once, from the right place.
    text = _ASSET.sub(lambda m: "<script>document.write(" + json.dumps(m.group(0)).replace("</", "<\\/") + ")</script>", text)
    script = _SCRIPT % {"known": json.dumps(list(TOP_FOLDERS)), "sub": json.dumps(prefix), "probe": json.dumps(PROBE)}
    # after the charset declaration, which must come within the first 1024 bytes
    head = re.search(r"<meta charset=[^>]*>", text) or re.search(r"<head[^>]*>", text)
    if head is None:
        return text
    text = text[: head.end()] + script + text[head.end():]
    end = re.search(r'<script id="__config"[^>]*>.*?</script>', text, re.S)
    if end is not None:
        text = text[: end.end()] + _CONFIG_PATCH + text[end.end():]
    return text
