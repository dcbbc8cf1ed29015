;;; emacs.el --- end-to-end test of editors/emacs/tilels-eglot.el  -*- lexical-binding: t -*-
;;
;;   WORK=<dir> TILELS=<bin/tilels> TILELS_VERSION=<its version> PLUGIN=editors/emacs \
;;     emacs --batch -Q -l scripts/e2e/emacs.el
;;
;; WORK holds kernel.py (copy_fallback.py), cases.py (scripts/e2e/cases.py)
;; and plain.py (Python without the TIRx import).  Emacs 28 with Debian's
;; elpa-eglot 1.9.  Prints "ok <step>" lines; exits 1 on the first failure
;; with "FAIL: <why>", 0 after the server shut down cleanly.

(require 'package)
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(require 'cl-lib)

(defun e2e-log (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun e2e-check (cond what)
  (unless cond (error "%s" what))
  (e2e-log "ok %s" what))

(defun e2e-wait (secs pred)
  "Run the event loop until PRED is non-nil or SECS pass; return PRED's value."
  (let ((deadline (+ (float-time) secs)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.02)
      ;; What the command loop would do between commands: timers, eglot-ensure.
      (run-hooks 'post-command-hook))
    v))

(defun e2e-read (file)
  (when (file-exists-p file)
    (with-temp-buffer (insert-file-contents file) (buffer-string))))

(defun e2e-goto (regexp)
  (goto-char (point-min))
  (re-search-forward regexp)
  (goto-char (match-beginning 0)))

(defvar e2e-messages nil)

(let ((work (getenv "WORK"))
      (tilels (getenv "TILELS"))
      (status 1))
  (condition-case err
      (progn
        (add-to-list 'load-path (getenv "PLUGIN"))
        (require 'tilels-eglot)
        (e2e-log "eglot %s, Emacs %s" (package-desc-version (cadr (assq 'eglot package-alist)))
                 emacs-version)
        (setq tilels-program (list tilels)
              tilels-settings '(:arch "sm_80" :maxCases 8)
              eglot-sync-connect 10
              tilels-lowered-refresh-delay 0.2)
        (tilels-eglot-setup)
        (advice-add 'message :before
                    (lambda (fmt &rest args)
                      (when fmt (push (apply #'format-message fmt args) e2e-messages))))

        ;; 0. A missing or too old server: a clear error.
        (dolist (c `((,(expand-file-name "missing-tilels" work) "is not an executable program")
                     (,(expand-file-name "old-tilels" work) "is tilels 0.0.9; this needs 0.1.0 or newer")))
          (when (string-match-p "old" (car c))
            (with-temp-file (car c) (insert "#!/bin/sh\necho 'tilels 0.0.9'\n"))
            (set-file-modes (car c) #o755))
          (let* ((tilels-program (list (car c)))
                 (msg (condition-case e (progn (tilels-check-server) "no error")
                        (user-error (error-message-string e)))))
            (e2e-check (string-match-p (regexp-quote (cadr c)) msg)
                       (format "refused %s: %s" (file-name-nondirectory (car c)) msg))))
        (let ((want (getenv "TILELS_VERSION")))
          (e2e-check (equal (tilels-check-server) want) (format "the real server is %s" want)))

        ;; 1. Python without the TIRx import: python-mode, no server.
        (find-file (expand-file-name "plain.py" work))
        (let ((plain (current-buffer)))
          (e2e-wait 1 (lambda () nil))
          (e2e-check (and (eq major-mode 'python-mode) (not (eglot-current-server)))
                     "plain.py stays in python-mode with no server")

          ;; 2. The kernel opens in tilels-tirx-mode and eglot connects.
          (find-file (expand-file-name "kernel.py" work))
          (let ((src (current-buffer)) server)
            (e2e-check (eq major-mode 'tilels-tirx-mode) "kernel.py opens in tilels-tirx-mode")
            (e2e-check (e2e-wait 15 (lambda () (and eglot--managed-mode (eglot-current-server))))
                       "eglot connects to tilels (eglot-ensure)")
            (setq server (eglot-current-server))
            (e2e-check (object-of-class-p server 'tilels-eglot-server) "the server is a tilels-eglot-server")
            (with-current-buffer plain
              (e2e-check (null (eglot-current-server)) "plain.py still has no server"))

            ;; 3. flymake shows the fallback warning.
            (let (diag)
              (e2e-check (e2e-wait 15 (lambda ()
                                        (setq diag (cl-find-if
                                                    (lambda (d) (string-match-p "lowers only through fallback"
                                                                                (flymake-diagnostic-text d)))
                                                    (flymake-diagnostics)))))
                         "flymake shows the fallback-only diagnostic")
              (e2e-log "diagnostic: %s" (flymake-diagnostic-text diag))
              (e2e-check (eq (flymake-diagnostic-type diag) 'eglot-warning) "as a warning"))

            ;; 4. Hover, the way eldoc asks eglot for it.
            (e2e-goto "Tx\\.warp\\.copy")
            (forward-char 4)
            (let (doc)
              (eglot-hover-eldoc-function (lambda (info &rest _) (setq doc (or info ""))))
              (e2e-check (e2e-wait 15 (lambda () doc)) "eglot's hover answers")
              (e2e-check (string-match-p "fallback" doc) "the hover names the fallback variant")
              (e2e-check (string-match-p "gmem_smem" doc) "and the declined gmem_smem")
              (e2e-check (string-match-p "  0│00 00 00 00 00 00" doc) "and the partition grid (lane 0 moves every element)")
              (unless (fboundp 'gfm-view-mode)
                ;; eglot asks for plain text without markdown-mode: the
                ;; variant table comes as aligned columns.
                (e2e-check (and (not (string-match-p "|---|" doc)) (string-match-p "gmem_smem   10    rejected" doc))
                           "plain text without markdown-mode (the variant table as aligned columns)")))

            ;; 5. The lowered CUDA in a buffer; the settings reached the server.
            (let* ((cli (expand-file-name "cli.cu" work))
                   (_ (call-process tilels nil nil nil "--lower" (buffer-file-name src)
                                    "--arch" "sm_80" "--no-line-directives" "-o" cli))
                   (expect (e2e-read cli))
                   (buf (tilels-show-lowered)))
              (with-current-buffer buf
                (e2e-check (string-match-p "__global__" (buffer-string))
                           "tilels-show-lowered gives a buffer with __global__")
                (e2e-check (derived-mode-p 'c++-mode) "in c++-mode")
                (e2e-check buffer-read-only "read-only")
                (e2e-check (string-match-p "// tilels: arch=sm_80" (buffer-string))
                           "tilels-settings reached the server (arch=sm_80)")
                (e2e-check (equal (buffer-string) expect) "the buffer equals tilels --lower --arch sm_80"))
              (e2e-check (get-buffer-window buf) "and is shown in a window")
              (e2e-check (eq (tilels-show-lowered) buf) "running it again reuses the buffer")

              ;; Live refresh: an edit reaches the visible lowered buffer.
              (with-current-buffer src
                (e2e-goto "^ROWS, COLS = 4, 6")
                (replace-regexp-in-region "4, 6" "4, 8" (point) (line-end-position)))
              (e2e-check (e2e-wait 15 (lambda ()
                                        (with-current-buffer buf
                                          (string-match-p "A_smem_ptr\\[32\\]" (buffer-string)))))
                         "the lowered buffer follows an edit (24 -> 32 elements)")
              (with-current-buffer src
                (e2e-goto "^ROWS, COLS = 4, 8")
                (replace-regexp-in-region "4, 8" "4, 6" (point) (line-end-position))
                (save-buffer))
              (e2e-check (e2e-wait 15 (lambda () (equal (with-current-buffer buf (buffer-string)) expect)))
                         "and the edit back")

              ;; 6. Write the CUDA beside the source.
              (let ((cu (expand-file-name "kernel.cu" work)))
                (with-current-buffer src
                  (e2e-check (equal (tilels-write-cuda) cu) "tilels-write-cuda names kernel.cu"))
                (e2e-check (equal (e2e-read cu) expect) "kernel.cu is written, equal to tilels --lower")
                ;; The server's code action, through eglot's picker.
                (delete-file cu)
                (let (offered)
                  ;; As from the keyboard (a list here means a mouse menu).
                  (with-current-buffer src
                    (cl-letf ((last-nonmenu-event ?\r)
                              ((symbol-function 'completing-read)
                               (lambda (_prompt choices &rest _)
                                 (setq offered (mapcar (lambda (c) (if (consp c) (car c) c)) choices))
                                 (car (member "Write lowered CUDA to kernel.cu" offered)))))
                      (eglot-code-actions (point-min) (point-max) nil t)))
                  (e2e-check (member "Write lowered CUDA to kernel.cu" offered)
                             (format "eglot-code-actions offers %S" offered)))
                (e2e-check (e2e-wait 15 (lambda () (equal (e2e-read cu) expect)))
                           "and the action writes kernel.cu")))

            ;; 7. Cases: pick one with completing-read.
            (find-file (expand-file-name "cases.py" work))
            (let ((cases (current-buffer)) offered res)
              (e2e-check (e2e-wait 15 (lambda () (eglot-current-server))) "cases.py is managed")
              (e2e-check (eq (eglot-current-server) server) "by the same server")
              (e2e-goto "Tx\\.warp\\.copy")
              (cl-letf (((symbol-function 'completing-read)
                         (lambda (_prompt choices &rest _)
                           (setq offered (mapcar #'car choices))
                           (nth 1 offered))))
                (setq res (tilels-select-case)))
              (e2e-log "offered: %S" offered)
              (e2e-check (and (= (length offered) 2)
                              (string-match-p "rows=32, cols=32  (selected)" (nth 0 offered))
                              (string-match-p "rows=4, cols=6" (nth 1 offered)))
                         "the picker offers both cases, the first selected")
              (e2e-check (and (eql (plist-get res :case) 2) (eql (plist-get res :count) 2)) "case 2/2 selected")
              (let ((buf (tilels-show-lowered)))
                (with-current-buffer buf
                  (e2e-check (string-match-p "// tilels: stage case 2/2: rows=4, cols=6" (buffer-string))
                             "the lowered buffer names the selected case")
                  (e2e-check (string-match-p "-> fallback" (buffer-string)) "and shows its CUDA"))
                (with-current-buffer cases (tilels-select-case "stage" 1))
                (e2e-check (e2e-wait 15 (lambda ()
                                          (with-current-buffer buf
                                            (string-match-p "stage case 1/2" (buffer-string)))))
                           "selecting case 1 refreshes the visible buffer"))
              ;; One kernel's view goes stale, not empty, when the kernel
              ;; loses its values.
              (let ((kbuf (with-current-buffer cases (tilels-show-lowered nil "stage"))))
                (with-current-buffer cases
                  (e2e-goto "^# tilels: bind")
                  (let ((beg (point)))
                    (forward-line 2)
                    (kill-region beg (point))))
                (e2e-check (e2e-wait 15 (lambda ()
                                          (with-current-buffer kbuf
                                            (string-match-p "\\`// tilels: not refreshed: " (buffer-string)))))
                           "an unbound kernel's buffer keeps its CUDA, marked not refreshed")
                (e2e-check (with-current-buffer kbuf (string-match-p "__global__" (buffer-string)))
                           "the last CUDA is still there")
                (with-current-buffer cases (yank))
                (e2e-check (e2e-wait 15 (lambda ()
                                          (with-current-buffer kbuf
                                            (string-match-p "\\`// tilels: stage case 1/2" (buffer-string)))))
                           "restored: fresh again")))

            ;; 8. A python-mode file that gains the import switches on save.
            (with-current-buffer plain
              (goto-char (point-min))
              (insert "from tvm.script import ir as I, tirx as T\n")
              (save-buffer)
              (e2e-check (eq major-mode 'tilels-tirx-mode) "plain.py switches to tilels-tirx-mode on save")
              (e2e-check (e2e-wait 15 (lambda () (eq (eglot-current-server) server)))
                         "and is managed by the server"))

            ;; 9. New settings reach the running server.
            (setq tilels-settings '(:arch "sm_89"))
            (tilels-send-settings)
            (with-current-buffer src
              (e2e-check (e2e-wait 15 (lambda ()
                                        (with-current-buffer (tilels-show-lowered)
                                          (string-match-p "// tilels: arch=sm_89" (buffer-string)))))
                         "tilels-send-settings: the lowered CUDA is for sm_89"))

            ;; 10. Shutdown: what eglot-shutdown sends (shutdown, exit), but
            ;; without its kill of the process right after, so that the
            ;; server's own exit status can be checked.
            (let ((proc (jsonrpc--process server)))
              (setf (eglot--shutdown-requested server) t)
              (jsonrpc-request server :shutdown nil :timeout 5)
              (jsonrpc-notify server :exit nil)
              (e2e-check (e2e-wait 10 (lambda () (not (process-live-p proc)))) "the server exits after shutdown and exit")
              (e2e-log "server process: %s %s" (process-status proc) (process-exit-status proc))
              (e2e-check (and (eq (process-status proc) 'exit) (eql (process-exit-status proc) 0))
                         "with exit status 0")
              (e2e-check (e2e-wait 10 (lambda () (with-current-buffer src (not eglot--managed-mode))))
                         "and eglot lets go of the buffers"))
            (let ((errs (cl-remove-if-not (lambda (m) (string-match-p "error\\|[Ww]arning" m)) e2e-messages)))
              (e2e-check (null errs) (format "no error or warning messages %S" errs)))
            (setq status 0))))
    (error (e2e-log "FAIL: %s" (error-message-string err))))
  (kill-emacs status))
