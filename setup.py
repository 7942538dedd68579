"""setuptools glue of the Python package (pyproject.toml, docs/python.md): the extension eddy._eddy
is built by CMake with the whole tree (libeddy, the host and the plugins), then the package gets
the extension, libeddy.so.1 beside it (the extension's RUNPATH is $ORIGIN) and the plugins in
eddy/plugins, the folder the package searches after EDDY_PLUGIN_PATH.

Environment: CMAKE_BUILD_PARALLEL_LEVEL (default 1), EDDY_CMAKE_ARGS (extra -D options)."""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DEDDY_PYTHON=ON",
                     "-DEDDY_PYTHON_WHEEL=ON", "-DEDDY_BUILD_TESTS=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        configure += shlex.split(os.environ.get("EDDY_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "1")
        subprocess.run(["cmake", "--build", build, "-j", jobs], check=True)
        target = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(target)
        os.makedirs(os.path.join(package, "plugins"), exist_ok=True)
        built = glob.glob(os.path.join(build, "python", "eddy", "_eddy*.so"))
        if len(built) != 1:
            raise RuntimeError(f"eddy: expected one extension in {build}/python/eddy, found {built}")
        shutil.copyfile(built[0], target)
        shutil.copyfile(os.path.join(build, "lib", "libeddy.so.1"), os.path.join(package, "libeddy.so.1"))
        for plugin in glob.glob(os.path.join(build, "lib", "eddy", "plugins", "eddy_*.so")):
            shutil.copyfile(plugin, os.path.join(package, "plugins", os.path.basename(plugin)))


setup(
    packages=["eddy"],
    package_dir={"": "python"},
    package_data={"eddy": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("eddy._eddy", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
