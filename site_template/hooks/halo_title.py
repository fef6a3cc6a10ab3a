"""MkDocs hook of the review site: the site title, escaped exactly once.

The theme prints ``config.site_name`` both raw (header, ``<title>``) and through
Jinja's ``| e`` (``title=""`` attributes). ``halo-git site`` writes the title
already HTML-escaped into mkdocs.yml (safe with a builder that ignores hooks,
such as Zensical); this hook marks it as ``Markup``, escaped text that ``| e``
leaves alone, so attributes are not escaped twice.
"""

from markupsafe import Markup


def on_config(config):
    config.site_name = Markup(str(config.site_name))
    return config
