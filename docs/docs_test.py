"""Runs the README's and docs/' runnable commands and checks their links.

A fenced block whose opening fence is ```sh runnable is run with bash
(-euo pipefail) from the repository root as the test sees it, after the
binaries' paths a user types (bazel-bin/...) are replaced by the built
binaries' paths (SHOAL_SCHEDULER, SHOAL_SIM, SHOALCTL in the environment,
set by docs_test.sh from the runfiles). A block that exits non-zero fails
the test, naming the file and the line of its fence. Every relative link
in those files must name an existing file, and a #fragment into a
Markdown file an existing heading.

  python3 docs/docs_test.py [--readme=README.new.md]   # by hand, after bazel build
"""
import argparse, glob, os, re, subprocess, sys

FENCE = re.compile(r'^```(\S*)(.*)$')
LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)\)')


def blocks(path):
    """(line of the opening fence, info words, body) of each fenced block."""
    out, cur = [], None
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = FENCE.match(line.rstrip('\n'))
        if cur is None and m:
            cur = (n, (m.group(1) + ' ' + m.group(2)).split(), [])
        elif cur is not None and line.strip() == '```':
            out.append((cur[0], cur[1], ''.join(cur[2])))
            cur = None
        elif cur is not None:
            cur[2].append(line)
    return out


def anchors(path):
    """GitHub's heading anchors of a Markdown file."""
    result, in_code = set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            in_code = not in_code
        if in_code or not line.startswith('#'):
            continue
        text = line.lstrip('#').strip().lower()
        text = re.sub(r'[^\w\- ]', '', text).replace(' ', '-')
        result.add(text)
    return result


def substitute(body):
    # By hand (no runfiles): the binaries where `bazel build` left them.
    for var, path in (('SHOAL_SCHEDULER', 'bazel-bin/scheduler/shoal-scheduler'),
                      ('SHOAL_SIM', 'bazel-bin/tools/simulator/shoal-sim'),
                      ('SHOALCTL', 'bazel-bin/tools/shoalctl/shoalctl')):
        if not os.environ.get(var) and os.path.exists(path):
            os.environ[var] = os.path.abspath(path)
    subs = [('bazel-bin/scheduler/shoal-scheduler', os.environ.get('SHOAL_SCHEDULER')),
            ('bazel-bin/tools/simulator/shoal-sim', os.environ.get('SHOAL_SIM')),
            ('bazel-bin/tools/shoalctl/shoalctl', os.environ.get('SHOALCTL'))]
    for old, new in subs:
        if new:
            body = body.replace(old, new)
    if os.environ.get('SHOALCTL'):
        body = re.sub(r'(?m)^(\s*)shoalctl\b', r'\1' + os.environ['SHOALCTL'], body)
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readme', default='README.md')
    args = ap.parse_args()
    files = [args.readme] + sorted(glob.glob('docs/**/*.md', recursive=True))
    failures, ran = [], 0
    for f in files:
        base = os.path.dirname(f)
        for n, line in enumerate(open(f, encoding='utf-8'), 1):
            for target in LINK.findall(line):
                if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                    if target.startswith('#') and target[1:] not in anchors(f):
                        failures.append(f'{f}:{n}: no heading for link {target}')
                    continue
                path, _, frag = target.partition('#')
                full = os.path.normpath(os.path.join(base, path))
                if not os.path.exists(full):
                    failures.append(f'{f}:{n}: link to missing file {target}')
                elif frag and full.endswith('.md') and frag not in anchors(full):
                    failures.append(f'{f}:{n}: no heading "#{frag}" in {path}')
        for n, info, body in blocks(f):
            if info[:1] != ['sh'] or 'runnable' not in info[1:]:
                continue
            ran += 1
            r = subprocess.run(['bash', '-euo', 'pipefail', '-c', substitute(body)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=300, text=True)
            print(f'{f}:{n}: exit {r.returncode}')
            if r.returncode != 0:
                failures.append(f'{f}:{n}: runnable block exited {r.returncode}:\n'
                                + r.stdout[-2000:])
    print(f'{ran} runnable blocks run, {len(files)} files checked')
    for x in failures:
        print('FAIL ' + x)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
