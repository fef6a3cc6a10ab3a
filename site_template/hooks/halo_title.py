"""MkDocs hook of the review site: the site title, escaped exactly once.

The theme prints ``config.site_name`` both raw (header, ``<title>``) and through
Jinja's ``| e`` (``title=""`` attributes). Escaped in the configuration, the
title came out double-escaped in attributes; left raw, it could inject HTML.
As ``Markup`` it is escaped text that ``| e`` leaves alone, so both are right.
"""

from markupsafe import Markup, escape


def on_config(config):
    config.site_name = Markup(escape(str(config.site_name)))
    return config
