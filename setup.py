"""Build step: ship the top-level ``site_template/`` inside the package.

The template lives once, at the top of the repository (the review-site
workflow and docs point there). A symlink into the package would check out
as a text file on Windows, so the wheel build copies the folder into
``halo_git/site_template`` instead; a source checkout or editable install
reads the top-level folder directly (``halo_git.site.output.template_dir``).
Everything else is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATE = Path(__file__).resolve().parent / "site_template"


class BuildPyWithTemplate(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "halo_git" / "site_template"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(TEMPLATE, target)

    def get_outputs(self, include_bytecode=True):
        target = Path(self.build_lib) / "halo_git" / "site_template"
        extra = [str(p) for p in TEMPLATE.rglob("*") if p.is_file()]
        extra = [str(target / Path(p).relative_to(TEMPLATE)) for p in extra]
        return super().get_outputs(include_bytecode) + extra


setup(cmdclass={"build_py": BuildPyWithTemplate})
