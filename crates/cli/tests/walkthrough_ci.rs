//! The CI walkthroughs run as their runners run them: the GitHub Actions
//! workflow in docs/graders/github/fencelab.yml and the GitLab job in
//! docs/graders/gitlab/gitlab-ci.yml, each read from the file as the docs
//! show it and each of its steps run as written, installing fencelab from
//! the release archive (`common::release_tarball`).
//!
//! Neither GitHub nor GitLab is reachable from here, so each runner is
//! stood in for by what its documentation says it does, no more:
//! - GitHub: a `run` step with no `shell` runs as `bash -e {0}` on Linux
//!   (workflow syntax, `jobs.<job_id>.steps[*].shell`: "unspecified ...
//!   bash -e {0}"); a step runs when the job has not failed, or under
//!   `if: always()`; a line `DIR` appended to the file `$GITHUB_PATH` puts
//!   DIR first on PATH for the later steps; `$GITHUB_STEP_SUMMARY` is a
//!   file whose Markdown becomes the job summary. `actions/checkout` is the
//!   repository already laid out; `actions/upload-artifact` keeps `path`.
//! - GitLab: with the Docker executor the job runs in its `image`, whose
//!   shell must be `sh` or `bash` (GitLab Runner docs, Docker executor);
//!   `before_script` and `script` run in one shell that stops at the first
//!   failing line; `variables` are environment variables, as is
//!   `CI_PROJECT_DIR`, the checkout, the job's working folder. The image
//!   is `busybox`, and the root built here holds Debian's static busybox
//!   and nothing else: no compiler, no libc, no network.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use yaml_rust2::{Yaml, YamlLoader};

const WORKFLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/graders/github/fencelab.yml"
);
const GITLAB_JOB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/graders/gitlab/gitlab-ci.yml"
);

fn yaml(path: &str) -> Yaml {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut documents =
        YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path} is not YAML: {e}"));
    assert_eq!(documents.len(), 1, "{path} is one document");
    documents.remove(0)
}

/// A mapping's string values, for `env:` and `variables:`.
fn strings(node: &Yaml) -> BTreeMap<String, String> {
    let Some(hash) = node.as_hash() else {
        return BTreeMap::new();
    };
    hash.iter()
        .map(|(key, value)| {
            let key = key.as_str().expect("a variable's name is a string");
            let value = value.as_str().expect("a variable's value is a string here");
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// The release archive and its sum in `repo/.fencelab`, as the walkthroughs
/// tell an author to commit them.
fn commit_release(repo: &Path, scratch: &Path) {
    let archive = common::release_tarball(scratch);
    let folder = repo.join(".fencelab");
    std::fs::create_dir_all(&folder).unwrap();
    let name = archive.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, format!("{}.tar.gz", common::RELEASE_NAME));
    std::fs::copy(&archive, folder.join(&name)).unwrap();
    let sum = archive.with_file_name(format!("{name}.sha256"));
    std::fs::copy(&sum, folder.join(format!("{name}.sha256"))).unwrap();
}

/// A correct claim: the bundled exercise's reference, taken from `check`'s
/// own file so that it stays the reference.
fn reference_claim() -> String {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../model/exercises/01-claim-compare-and-set.toml"
    );
    let text = std::fs::read_to_string(file).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let reference = table["procedures"]["claim"]["reference"].as_str();
    reference.expect("the exercise has a claim").to_string()
}

/// What one step of a GitHub job came to.
struct Step {
    name: String,
    ran: bool,
    output: Option<Output>,
}

impl Step {
    fn succeeded(&self) -> bool {
        self.output.as_ref().is_some_and(|o| o.status.success())
    }
    fn stdout(&self) -> String {
        self.output
            .as_ref()
            .map(|o| common::text(&o.stdout))
            .unwrap_or_default()
    }
}

/// The workflow's one job run in `repo` as GitHub's runner would, with
/// `runner` (a folder of its own) for the runner's files.
fn run_github_job(repo: &Path, runner: &Path) -> (Vec<Step>, String) {
    let workflow = yaml(WORKFLOW);
    let jobs = workflow["jobs"].as_hash().expect("the workflow has jobs");
    assert_eq!(jobs.len(), 1, "one job");
    let job = jobs.values().next().unwrap();
    assert_eq!(job["runs-on"].as_str(), Some("ubuntu-latest"));
    let mut env = strings(&workflow["env"]);
    env.extend(strings(&job["env"]));
    let (path_file, summary) = (runner.join("path"), runner.join("summary.md"));
    std::fs::write(&path_file, "").unwrap();
    std::fs::write(&summary, "").unwrap();
    let mut steps = Vec::new();
    let mut failed = false;
    for (index, step) in job["steps"].as_vec().expect("steps").iter().enumerate() {
        let name = step["name"].as_str().unwrap_or("(unnamed)").to_string();
        let ran = match step["if"].as_str() {
            None => !failed,
            Some("always()") => true,
            Some(other) => panic!("the stand-in runner does not evaluate `if: {other}`"),
        };
        let mut record = Step {
            name,
            ran,
            output: None,
        };
        if ran {
            if let Some(action) = step["uses"].as_str() {
                let succeeded = stand_in_action(action, step, repo, index);
                failed |= !succeeded;
                record.output = Some(shell_result(succeeded));
            } else {
                let script = step["run"].as_str().expect("a step runs or uses");
                assert!(step["shell"].is_badvalue(), "the walkthrough sets no shell");
                let mut step_env = env.clone();
                step_env.extend(strings(&step["env"]));
                let output = github_run(script, &step_env, repo, runner, &path_file, &summary);
                failed |= !output.status.success();
                record.output = Some(output);
            }
        }
        steps.push(record);
    }
    (steps, std::fs::read_to_string(&summary).unwrap())
}

/// An exit status for a step the stand-in did itself.
fn shell_result(succeeded: bool) -> Output {
    Command::new("sh")
        .args(["-c", if succeeded { "exit 0" } else { "exit 1" }])
        .output()
        .unwrap()
}

/// What the two actions the workflow uses do, here: checkout is the
/// repository already laid out (and must come first); upload-artifact
/// needs its `path` to be there.
fn stand_in_action(action: &str, step: &Yaml, repo: &Path, index: usize) -> bool {
    match action {
        "actions/checkout@v4" => {
            assert_eq!(index, 0, "the checkout comes first");
            true
        }
        "actions/upload-artifact@v4" => {
            let path = step["with"]["path"].as_str().expect("an artifact's path");
            repo.join(path).is_file()
        }
        other => panic!("the walkthrough uses an action the stand-in does not know: {other}"),
    }
}

/// One `run` step: `bash -e FILE`, in the workspace, PATH as
/// `$GITHUB_PATH` has grown, with the runner's variables.
fn github_run(
    script: &str,
    env: &BTreeMap<String, String>,
    repo: &Path,
    runner: &Path,
    path_file: &Path,
    summary: &Path,
) -> Output {
    let file = runner.join("step.sh");
    std::fs::write(&file, script).unwrap();
    let added = std::fs::read_to_string(path_file).unwrap();
    let mut path: Vec<&str> = added.lines().rev().collect();
    path.extend(["/usr/local/bin", "/usr/bin", "/bin"]);
    Command::new("bash")
        .arg("-e")
        .arg(&file)
        .current_dir(repo)
        .env_clear()
        .envs(env)
        .env("PATH", path.join(":"))
        .env("HOME", runner)
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", repo)
        .env("GITHUB_PATH", path_file)
        .env("GITHUB_STEP_SUMMARY", summary)
        .stdin(Stdio::null())
        .output()
        .expect("bash runs")
}

/// A fresh assignment repository holding `claim` (or no claim.sql).
fn github_repo(scratch: &Path, claim: Option<&str>) -> (PathBuf, PathBuf) {
    let repo = scratch.join("repo");
    let runner = scratch.join("runner");
    std::fs::create_dir_all(repo.join(".github/workflows")).unwrap();
    std::fs::create_dir_all(&runner).unwrap();
    std::fs::copy(WORKFLOW, repo.join(".github/workflows/fencelab.yml")).unwrap();
    commit_release(&repo, scratch);
    if let Some(claim) = claim {
        std::fs::write(repo.join("claim.sql"), claim).unwrap();
    }
    (repo, runner)
}

fn step<'a>(steps: &'a [Step], name: &str) -> &'a Step {
    steps
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no step `{name}`"))
}

#[test]
fn github_a_naive_claim_is_annotated_summarised_reported_and_fails_the_job() {
    let scratch = tempfile::tempdir().unwrap();
    let naive = std::fs::read_to_string(common::data("naive-claim.sql")).unwrap();
    let (repo, runner) = github_repo(scratch.path(), Some(&naive));
    let (steps, summary) = run_github_job(&repo, &runner);

    assert!(step(&steps, "Install fencelab").succeeded());
    let grade = step(&steps, "Grade");
    assert!(!grade.succeeded(), "a failing scenario fails the job");
    let errors: Vec<String> = grade
        .stdout()
        .lines()
        .filter(|l| l.starts_with("::error "))
        .map(str::to_string)
        .collect();
    assert_eq!(errors.len(), 1, "{}", grade.stdout());
    assert!(
        errors[0].starts_with("::error file=claim.sql,line="),
        "the annotation is on the learner's file: {}",
        errors[0]
    );
    assert!(grade.stdout().contains("score 2/3"), "{}", grade.stdout());
    assert!(
        summary.contains("| claim-compare-and-set | one winner | failed |"),
        "{summary}"
    );

    let junit = step(&steps, "JUnit report");
    assert!(
        junit.ran && junit.succeeded(),
        "the report step runs after the failure"
    );
    let report = std::fs::read_to_string(repo.join("fencelab-junit.xml")).unwrap();
    assert!(report.starts_with("<?xml"), "{report}");
    assert!(report.contains(r#"tests="3" failures="1""#), "{report}");
    assert!(step(&steps, "Keep the report").succeeded());
}

#[test]
fn github_a_correct_claim_passes_with_nothing_to_annotate() {
    let scratch = tempfile::tempdir().unwrap();
    let (repo, runner) = github_repo(scratch.path(), Some(&reference_claim()));
    let (steps, summary) = run_github_job(&repo, &runner);
    for step in &steps {
        assert!(step.ran && step.succeeded(), "step `{}` failed", step.name);
    }
    let grade = step(&steps, "Grade").stdout();
    assert!(!grade.contains("::error"), "{grade}");
    assert!(grade.contains("score 3/3"), "{grade}");
    assert!(summary.contains("3 of 3 points"), "{summary}");
}

#[test]
fn github_a_missing_claim_is_an_annotation_and_still_a_report() {
    let scratch = tempfile::tempdir().unwrap();
    let (repo, runner) = github_repo(scratch.path(), None);
    let (steps, _) = run_github_job(&repo, &runner);
    let grade = step(&steps, "Grade");
    assert!(!grade.succeeded());
    assert!(
        grade
            .stdout()
            .lines()
            .any(|l| l.starts_with("::error file=claim.sql")),
        "the learner is told which file is missing: {}",
        grade.stdout()
    );
    assert!(step(&steps, "JUnit report").succeeded());
    assert!(step(&steps, "Keep the report").succeeded());
}

#[test]
fn github_an_archive_that_does_not_match_its_sum_is_never_run() {
    let scratch = tempfile::tempdir().unwrap();
    let (repo, runner) = github_repo(scratch.path(), Some(&reference_claim()));
    let archive = repo
        .join(".fencelab")
        .join(format!("{}.tar.gz", common::RELEASE_NAME));
    let mut bytes = std::fs::read(&archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&archive, bytes).unwrap();
    let (steps, _) = run_github_job(&repo, &runner);
    let install = step(&steps, "Install fencelab");
    assert!(!install.succeeded());
    let said = common::text(&install.output.as_ref().unwrap().stderr);
    assert!(said.contains("did NOT match"), "sha256sum says so: {said}");
    assert!(
        !step(&steps, "Grade").ran,
        "nothing runs after a failed step"
    );
    assert!(
        !repo
            .join(".fencelab")
            .join(common::RELEASE_NAME)
            .join("fencelab")
            .exists(),
        "the archive was not unpacked"
    );
}

/// A root for the GitLab job's `busybox` image: Debian's static busybox,
/// its applets linked into /bin by busybox itself, and nothing else.
fn busybox_root(scratch: &Path) -> PathBuf {
    let root = scratch.join("image");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::copy("/bin/busybox", root.join("bin/busybox"))
        .expect("Debian's busybox-static is installed (cargo xtask setup installs it)");
    let installed = in_root(
        &root,
        "/",
        &["/bin/busybox", "--install", "-s", "/bin"],
        &[],
    );
    assert!(installed.status.success(), "{installed:?}");
    for compiler in ["cc", "gcc", "clang", "ld"] {
        assert!(
            !root.join("bin").join(compiler).exists(),
            "{compiler} in the image"
        );
    }
    root
}

/// `argv` run in `root` (`unshare --root`, no network) from `dir`, with
/// only `env` for its environment.
fn in_root(root: &Path, dir: &str, argv: &[&str], env: &[(String, String)]) -> Output {
    let mut root_flag = std::ffi::OsString::from("--root=");
    root_flag.push(root);
    Command::new("unshare")
        .args(["--net", "--mount", "--pid", "--fork"])
        .arg(root_flag)
        .arg(format!("--wd={dir}"))
        .args(argv)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .expect("unshare runs (as root)")
}

/// Where the job's checkout is, inside the image's root.
const PROJECT_DIR: &str = "/builds/course/fencelab-course";

/// Each job of the GitLab file run as the runner would, each on a fresh
/// checkout made by `checkout` in a fresh root: its name, what its shell
/// did, and its JUnit report's text when the job left one.
fn run_gitlab_jobs(scratch: &Path, checkout: &dyn Fn(&Path)) -> Vec<(String, Output, String)> {
    let pipeline = yaml(GITLAB_JOB);
    let variables = strings(&pipeline["variables"]);
    let default = &pipeline["default"];
    let mut ran = Vec::new();
    for (index, (name, job)) in pipeline.as_hash().unwrap().iter().enumerate() {
        let name = name.as_str().unwrap();
        if ["variables", "default", "stages", "workflow", "include"].contains(&name) {
            continue;
        }
        let pick = |key: &str| match &job[key] {
            Yaml::BadValue => default[key].clone(),
            own => own.clone(),
        };
        let image = pick("image");
        assert!(
            image.as_str().is_some_and(|i| i.starts_with("busybox:")),
            "{name} runs on busybox"
        );
        let root = busybox_root(&scratch.join(format!("job-{index}")));
        let project = root.join(PROJECT_DIR.trim_start_matches('/'));
        std::fs::create_dir_all(&project).unwrap();
        checkout(&project);
        let mut script = String::from("set -e\n");
        for key in ["before_script", "script"] {
            for line in pick(key).as_vec().expect("a list of lines") {
                script.push_str(line.as_str().expect("a line of shell"));
                script.push('\n');
            }
        }
        std::fs::write(root.join("job.sh"), script).unwrap();
        let mut env: Vec<(String, String)> = variables.clone().into_iter().collect();
        env.extend([
            ("CI".to_string(), "true".to_string()),
            ("GITLAB_CI".to_string(), "true".to_string()),
            ("CI_PROJECT_DIR".to_string(), PROJECT_DIR.to_string()),
            (
                "PATH".to_string(),
                "/usr/local/bin:/usr/bin:/bin".to_string(),
            ),
        ]);
        let output = in_root(&root, PROJECT_DIR, &["/bin/sh", "/job.sh"], &env);
        let artifacts = &job["artifacts"];
        assert_eq!(artifacts["when"].as_str(), Some("always"), "{name}");
        let report = artifacts["reports"]["junit"]
            .as_str()
            .expect("a JUnit report");
        let text = std::fs::read_to_string(project.join(report)).unwrap_or_default();
        ran.push((name.to_string(), output, text));
    }
    ran
}

/// The static release, or `None` (said) when this run has only the binary
/// under test packed, which needs this machine's libc and cannot run in
/// the image: `cargo xtask test` runs these tests again with the static
/// release (its stage "grader walkthroughs installing the static release").
fn static_release() -> Option<()> {
    if std::env::var_os("FENCELAB_TARBALL").is_some() {
        return Some(());
    }
    eprintln!(
        "the GitLab job needs the static release: run `cargo xtask dist-static`, then set FENCELAB_TARBALL"
    );
    None
}

/// A course checkout: two bundled exercises and `extra`, a claim `claim`,
/// and the release in .fencelab/.
fn course(project: &Path, scratch: &Path, extra: Option<&str>, claim: &str) {
    let exercises = project.join("exercises");
    std::fs::create_dir_all(&exercises).unwrap();
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/exercises/");
    for file in [
        "01-claim-compare-and-set.toml",
        "02-complete-under-the-token.toml",
    ] {
        std::fs::copy(format!("{bundled}{file}"), exercises.join(file)).unwrap();
    }
    if let Some(extra) = extra {
        std::fs::copy(common::data(extra), exercises.join(extra)).unwrap();
    }
    std::fs::write(project.join("claim.sql"), claim).unwrap();
    commit_release(project, scratch);
}

#[test]
fn gitlab_jobs_without_a_compiler_fail_on_what_fails_and_keep_their_reports() {
    if static_release().is_none() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let naive = std::fs::read_to_string(common::data("naive-claim.sql")).unwrap();
    let jobs = run_gitlab_jobs(scratch.path(), &|project| {
        course(
            project,
            scratch.path(),
            Some("uncaught-variant.toml"),
            &naive,
        )
    });
    let names: Vec<&str> = jobs.iter().map(|(name, ..)| name.as_str()).collect();
    assert_eq!(names, ["check-exercises", "grade-submission"]);
    for (name, output, report) in &jobs {
        let said = format!("{name}: {output:?}");
        assert_eq!(
            output.status.code(),
            Some(1),
            "a failing case fails the job: {said}"
        );
        assert!(
            common::text(&output.stdout).contains(": OK"),
            "the sum checked: {said}"
        );
        assert!(
            report.contains("<testsuites"),
            "{name} left its report: {report}"
        );
    }
    assert!(
        jobs[0].2.contains(r#"<failure type="survived""#),
        "{}",
        jobs[0].2
    );
    assert!(
        jobs[1].2.contains(r#"tests="3" failures="1""#),
        "{}",
        jobs[1].2
    );
}

#[test]
fn gitlab_jobs_without_a_compiler_pass_on_sound_work() {
    if static_release().is_none() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let jobs = run_gitlab_jobs(scratch.path(), &|project| {
        course(project, scratch.path(), None, &reference_claim())
    });
    assert_eq!(jobs.len(), 2);
    for (name, output, report) in &jobs {
        assert!(output.status.success(), "{name}: {output:?}");
        assert!(
            report.contains(r#"failures="0" errors="0""#),
            "{name}: {report}"
        );
    }
}
