"""The build's one part that pyproject.toml cannot declare: ``perturber._native``, the optional C
twins of a few hot loops (perturber/native.py), one stable-ABI module for Python 3.11 and later.
It is optional: without a C compiler the install goes on and the package runs its pure-Python
paths, with the same outputs (slower on text it has not seen)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "perturber._native",
            ["perturber/_native.c"],
            py_limited_api=True,
            define_macros=[("Py_LIMITED_API", "0x030B0000")],
            optional=True,
        )
    ],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
