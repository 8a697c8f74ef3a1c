"""check-deploy's checks, in order; scripts/check-deploy installs their tools and runs this.

Each group checks one kind of file and records in `Findings` what a later group needs (the
parsed documents, every `cluster` command line, the Kubernetes Deployments, the metrics the
alerts use); the smoke test then runs the command lines the groups found."""
from common import Findings
from compose import check_compose
from container import check_containerfile
from files import check_files
from flags import check_flags
from keys import check_no_keys_in_git
from kubernetes_ha import check_kubernetes_ha
from kubernetes_manifests import check_kubernetes
from prometheus import check_prometheus
from report import report
from smoke import smoke_test
from systemd import check_systemd


def main():
    findings = Findings()
    for group in (check_files, check_containerfile, check_compose, check_kubernetes, check_kubernetes_ha, check_prometheus,
                  check_systemd, check_flags, check_no_keys_in_git, smoke_test):
        group(findings)
    report.finish()


if __name__ == "__main__":
    main()
