/**
 * The progress of `admin copy`: a `cli-progress` bar with counts and an estimated time left
 * on a terminal, and otherwise (a log, a pipe, a test) a plain line every second or tenth
 * of the records, whichever comes first.
 */
import type { WriteStream } from "node:tty";
import { Presets, SingleBar } from "cli-progress";
import type { CopyProgress } from "formwork";

/** What the copy reports to, and how it ends. */
export interface ProgressView {
  update(progress: CopyProgress): void;
  stop(): void;
}

/** The view that suits `stream`: a bar on a terminal, lines elsewhere. */
export function copyProgress(stream: NodeJS.WriteStream): ProgressView {
  return stream.isTTY ? barView(stream as WriteStream) : lineView(stream);
}

function barView(stream: WriteStream): ProgressView {
  const bar = new SingleBar(
    {
      stream,
      format:
        "copying {bar} {percentage}% | {value}/{total} records | {files} files | {rate}/s | ETA {eta_formatted}",
      etaBuffer: 200,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  const started = Date.now();
  let running = false;
  return {
    update(progress) {
      if (progress.phase === "checking") {
        if (running) bar.stop();
        running = false;
        stream.write(checking);
        return;
      }
      const payload = { files: progress.files, rate: rateOf(progress.done, started) };
      if (!running) {
        bar.start(progress.total, progress.done, payload);
        running = true;
      } else bar.update(progress.done, payload);
    },
    stop() {
      if (running) bar.stop();
    },
  };
}

function lineView(stream: NodeJS.WritableStream): ProgressView {
  const started = Date.now();
  let last = 0;
  let lastDone = 0;
  let latest: CopyProgress | undefined;
  const print = (progress: CopyProgress) => {
    const { done, total, files, existed } = progress;
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    const rate = rateOf(done, started);
    const eta = rate > 0 ? `${Math.ceil((total - done) / rate)}s` : "?";
    stream.write(
      `copied ${done}/${total} records (${percent}%, ${existed} already there), ${files} files, ${rate} records/s, ETA ${eta}\n`,
    );
  };
  return {
    update(progress) {
      // The last record's update printed its line: the count is all that is left.
      if (progress.phase === "checking") {
        stream.write(checking);
        return;
      }
      latest = progress;
      const now = Date.now();
      const step = progress.done - lastDone >= progress.total / 10;
      if (now - last < 1000 && !step && progress.done !== progress.total) return;
      last = now;
      lastDone = progress.done;
      print(progress);
    },
    stop() {
      if (latest && last === 0) print(latest);
    },
  };
}

const checking = "counting the records in both stores\n";

/** Records per second since `started`. */
function rateOf(done: number, started: number): number {
  const seconds = (Date.now() - started) / 1000;
  return seconds > 0 ? Math.round(done / seconds) : 0;
}
