"""The Containerfile: hadolint, its stages, user and entry point, its packages against
scripts/install-deps, its Swift image against the local toolchain, and its build context."""
import fnmatch
import json
import os
import re
import shutil

from common import DEPLOY, REQUIRED_RUNTIME_PACKAGES, ROOT, indent, run, tool
from report import check, section


def parse_instructions(text):
    """(KEYWORD, rest) of every instruction, continuation lines joined."""
    logical = re.sub(r"\\\n", " ", text)
    instructions = []
    for line in logical.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, rest = stripped.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def split_stages(instructions):
    stages = []
    for keyword, rest in instructions:
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, rest))
    return stages


def apt_packages(run_text):
    packages = set()
    for match in re.finditer(r"apt-get install ([^&;]*)", run_text):
        packages.update(word for word in match.group(1).split() if not word.startswith("-"))
    return packages


def check_containerfile(findings):
    section("Containerfile")
    containerfile = os.path.join(DEPLOY, "Containerfile")
    result = run([tool("hadolint"), "--no-color", containerfile])
    check(result.returncode == 0, "hadolint: no findings", "hadolint:\n" + indent(result.stdout + result.stderr))

    with open(containerfile) as f:
        instructions = parse_instructions(f.read())
    stages = split_stages(instructions)
    args = dict(re.match(r"(\w+)=?(.*)", rest).groups() for keyword, rest in instructions[:5] if keyword == "ARG")
    check(len(stages) >= 2, f"multi-stage: {len(stages)} stages")
    final = stages[-1] if stages else []
    users = [rest for keyword, rest in final if keyword == "USER"]
    check(users and users[-1].split(":")[0] not in ("0", "root"), f"final stage runs as a non-root user ({users[-1] if users else 'none'})")
    entrypoints = [rest for keyword, rest in final if keyword == "ENTRYPOINT"]
    check(entrypoints and json.loads(entrypoints[-1]) == ["cluster"], 'ENTRYPOINT ["cluster"]')
    build_runs = " ".join(rest for keyword, rest in (stages[0] if stages else []) if keyword == "RUN")
    check("swift build -c release --product cluster" in build_runs, "builds with `swift build -c release --product cluster`")
    copies = [rest for keyword, rest in final if keyword == "COPY"]
    check(any(c.endswith("/usr/local/bin/cluster") for c in copies), "installs cluster as /usr/local/bin/cluster")
    check("libPhotoClusterExamplePlugin*.so" in build_runs and any(c.endswith("/usr/local/lib/photocluster/plugins/") for c in copies),
          "installs the example plugins in /usr/local/lib/photocluster/plugins")

    check_packages(final, build_runs)
    check_swift_image(args.get("SWIFT_IMAGE", ""))
    check_binaries_stage(stages, args, final)
    check_build_context(containerfile, stages)


def stage_name(stage):
    """The `AS name` of a stage, or None."""
    words = stage[0][1].split() if stage else []
    return words[2] if len(words) == 3 and words[1].upper() == "AS" else None


def check_binaries_stage(stages, args, final):
    """The runtime stage takes /out from the stage BINARIES names: `build` (compiled in SWIFT_IMAGE)
    or `host` (a host build staged in .build-image/stage by scripts/build-image), the same way for both."""
    names = {stage_name(stage): stage for stage in stages}
    binaries = names.get("binaries")
    base = binaries[0][1].split()[0] if binaries else ""
    default = args.get("BINARIES", "")
    spelled = re.fullmatch(r"\$\{BINARIES:-(\w+)\}", base)
    check(binaries and spelled and spelled.group(1) == default and default in names,
          f"stage `binaries` is FROM ${{BINARIES:-{default}}}, the ARG's default spelled out (buildah 1.28 reads only --build-arg there)",
          f"stage `binaries` should be FROM ${{BINARIES:-{default or 'build'}}} with ARG BINARIES naming a stage (is {base or 'missing'})")
    check(stage_name(stages[0]) == "build" and "host" in names, "stages `build` (SWIFT_IMAGE) and `host` (a host build) both supply /out")
    host_copies = [rest.split() for keyword, rest in names.get("host", []) if keyword == "COPY"]
    check(host_copies == [[".build-image/stage/", "/out/"]], "stage `host` copies .build-image/stage/ (scripts/build-image) to /out/",
          f"stage `host` copies {host_copies}, not .build-image/stage/ to /out/")
    sources = {re.search(r"--from=(\S+)", rest).group(1) for keyword, rest in final if keyword == "COPY" and "--from=" in rest}
    check(sources == {"binaries"}, "the runtime stage copies only from `binaries`", f"the runtime stage copies from {sorted(sources)}")
    runs = " ".join(rest for keyword, rest in final if keyword == "RUN")
    check("/etc/ld.so.conf.d/" in runs and "ldconfig" in runs,
          "the runtime stage lists /usr/lib/swift/linux in ld.so.conf (a host build's RUNPATH names its own toolchain)")


def check_packages(final, build_runs):
    runtime_packages = apt_packages(" ".join(rest for keyword, rest in final if keyword == "RUN"))
    check(REQUIRED_RUNTIME_PACKAGES <= runtime_packages,
          f"runtime stage installs {' '.join(sorted(REQUIRED_RUNTIME_PACKAGES))}",
          f"runtime stage lacks {' '.join(sorted(REQUIRED_RUNTIME_PACKAGES - runtime_packages))}")
    with open(os.path.join(ROOT, "scripts", "install-deps")) as f:
        deps = re.search(r"packages=\(([^)]*)\)", f.read())
    # The libraries to build against (protoc and test tools aside).
    needed = {p for p in deps.group(1).split() if re.fullmatch(r"lib.*-dev|pkg-config", p)} if deps else set()
    build_packages = apt_packages(build_runs)
    check(deps and needed <= build_packages, f"build stage installs the libraries of scripts/install-deps ({' '.join(sorted(needed))})",
          f"build stage lacks {' '.join(sorted(needed - build_packages))} (from scripts/install-deps)")


def check_swift_image(swift_image):
    tag = re.match(r"swift:(\d+)\.(\d+)", swift_image)
    check(tag and tag.group(1) == "6", f"build image {swift_image} is a Swift 6 toolchain")
    if tag and shutil.which("swift"):
        local = re.search(r"Swift version (\d+)\.(\d+)", run(["swift", "--version"]).stdout + "")
        if local:
            check(local.groups() == tag.groups(),
                  f"build image Swift {'.'.join(tag.groups())} matches the local toolchain",
                  f"build image {swift_image} but the local toolchain is Swift {'.'.join(local.groups())}: "
                  f"set ARG SWIFT_IMAGE=swift:{'.'.join(local.groups())}-bookworm")


def check_build_context(containerfile, stages):
    """Each COPY source exists and passes Containerfile.dockerignore, and every target directory
    Package.swift names is copied (SwiftPM checks them all)."""
    ignore_file = containerfile + ".dockerignore"
    patterns = []
    if os.path.exists(ignore_file):
        with open(ignore_file) as f:
            patterns = [line.strip() for line in f if line.strip() and not line.startswith("#")]

    def ignored(path):
        result = False
        for pattern in patterns:
            negate = pattern.startswith("!")
            p = pattern[1:] if negate else pattern
            if fnmatch.fnmatch(path, p) or path.startswith(p.rstrip("/") + "/"):
                result = not negate
        return result

    sources = []
    for keyword, rest in stages[0] if stages else []:
        if keyword == "COPY" and "--from" not in rest:
            sources.extend(rest.split()[:-1])
    missing = [s for s in sources if not os.path.exists(os.path.join(ROOT, s))]
    check(sources and not missing, f"COPY sources exist: {' '.join(sources)}", f"COPY sources missing: {' '.join(missing)}")
    excluded = [s for s in sources if ignored(s.rstrip("/"))]
    check(not excluded, "COPY sources pass Containerfile.dockerignore", f"excluded by Containerfile.dockerignore: {' '.join(excluded)}")
    # The host stage's folder exists only once scripts/build-image staged it; it must pass the filter.
    staged = [rest.split()[0] for stage in stages if stage_name(stage) == "host" for keyword, rest in stage if keyword == "COPY"]
    check(staged and not any(ignored(s.rstrip("/")) for s in staged), f"the host stage's {' '.join(staged)} passes Containerfile.dockerignore",
          f"Containerfile.dockerignore excludes the host stage's {' '.join(staged) or '(no COPY)'}")
    target_dirs = package_target_directories()
    uncopied = sorted(d for d in target_dirs if not any(d == s.rstrip("/") or d.startswith(s.rstrip("/") + "/") for s in sources))
    check(not uncopied, f"every target directory of Package.swift ({len(target_dirs)}) is copied", f"not copied into the build: {' '.join(uncopied)}")


def package_target_directories():
    with open(os.path.join(ROOT, "Package.swift")) as f:
        manifest = f.read()
    target_dirs = set()
    for match in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\(", manifest):
        depth, i = 1, match.end()
        while depth and i < len(manifest):
            depth += {"(": 1, ")": -1}.get(manifest[i], 0)
            i += 1
        body = manifest[match.end():i]
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        path = re.search(r'path:\s*"([^"]+)"', body)
        target_dirs.add(path.group(1) if path else ("Tests/" if match.group(1) == "testTarget" else "Sources/") + name)
    return target_dirs
