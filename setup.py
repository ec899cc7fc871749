"""Build hook: ship ``poetone-lm-eval.pth`` at the root of site-packages (see
src/_poetone_lm_eval_hook.py for why). Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "poetone-lm-eval.pth"


class build_py_with_pth(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file(str(Path("src") / PTH), str(Path(self.build_lib) / PTH), preserve_mode=0)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


setup(cmdclass={"build_py": build_py_with_pth})
