;;; tilels-eglot.el --- The tilels language server through eglot  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: languages, tools

;;; Commentary:

;; tilels analyses Python files written in TVM's TIRx tile DSL: every
;; Tx call's dispatch decision as diagnostics and hovers, and the CUDA the
;; file lowers to.  This file connects it to Emacs through eglot:
;;
;;   (add-to-list 'load-path "/path/to/tilels/editors/emacs")
;;   (require 'tilels-eglot)
;;   (setq tilels-program '("/path/to/tilels"))   ; when not on PATH
;;   (tilels-eglot-setup)
;;
;; A Python file that imports the TIRx DSL (`from tvm.script import tirx',
;; `from tvm.script.tirx import ...', `import tvm.tirx', `from tvm.tirx...')
;; opens in `tilels-tirx-mode', a `python-mode' whose buffers eglot hands
;; to tilels; other Python files keep `python-mode' and whatever server you
;; use for them.  Commands:
;;
;;   M-x tilels-show-lowered   the lowered CUDA (C-u: TIRx) in a window
;;   M-x tilels-write-cuda     write <name>.cu beside the file
;;   M-x tilels-select-case    pick the case of the kernel def at point
;;
;; All analysis is the server's (its commands tilels.lower,
;; tilels.writeCUDA, tilels.pickCase, tilels.selectCase); this is glue.
;; See docs/editor-emacs.md.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'python)
(require 'eglot)
(require 'jsonrpc)

(defgroup tilels nil
  "The tilels language server for the TIRx tile DSL."
  :group 'tools
  :prefix "tilels-")

(defcustom tilels-program '("tilels")
  "The tilels server: the program and its arguments."
  :type '(repeat string))

(defcustom tilels-settings nil
  "The server's settings (section \"tilels\") as a plist.
For example (:arch \"sm_80\" :maxCases 16 :bind (:make_gemm
\"M=4096, dtype='float16'\")).  Write :json-false for false
\(:inlayHints :json-false).  A directory-local
`eglot-workspace-configuration' with a :tilels section wins over this.
After a change, \\[tilels-send-settings] sends them to the running servers."
  :type 'plist)

(defcustom tilels-lowered-refresh-delay 0.5
  "Seconds after the last edit before visible lowered buffers refresh.
nil refreshes them only when the source is saved."
  :type '(choice (const :tag "Only on save" nil) number))

(defcustom tilels-lowered-display-action
  '((display-buffer-reuse-window display-buffer-pop-up-window)
    (inhibit-same-window . t))
  "How `tilels-show-lowered' displays its buffer (a `display-buffer' action)."
  :type 'sexp)

(defconst tilels-min-server-version "0.1.0"
  "The oldest tilels whose commands this file speaks.")

;;;; Which buffers are TIRx

(defconst tilels--import-regexp
  (concat "^[ \t]*\\(?:"
          "import[ \t]+tvm\\.\\(?:script\\.\\)?tirx\\_>"
          "\\|from[ \t]+tvm\\.\\(?:script\\.\\)?tirx\\_>"
          "\\|from[ \t]+tvm\\.script[ \t]+import[ \t]+[^#\n(]*\\_<tirx\\_>"
          "\\|from[ \t]+tvm\\.script[ \t]+import[ \t]*([^)#]*\\_<tirx\\_>"
          "\\)")
  "Matches an import of the TIRx DSL.")

(defun tilels-tirx-buffer-p ()
  "Whether the current buffer's text imports the TIRx DSL."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (let ((case-fold-search nil))
        (re-search-forward tilels--import-regexp nil t)))))

(defun tilels--python-file-p ()
  (and buffer-file-name
       (string-match-p "\\.pyi?\\'" buffer-file-name)))

(defun tilels--magic-p ()
  "For `magic-mode-alist': a Python file that imports the TIRx DSL."
  (and (tilels--python-file-p) (tilels-tirx-buffer-p)))

;;;###autoload
(define-derived-mode tilels-tirx-mode python-mode "TIRx"
  "`python-mode' for files that import the TIRx DSL.
Eglot manages these buffers with the tilels language server.")

(defun tilels--maybe-switch-mode ()
  "After saving a `python-mode' file that now imports TIRx, switch modes."
  (when (and (eq major-mode 'python-mode) (tilels--magic-p))
    (tilels-tirx-mode)))

(defun tilels--python-hook ()
  (add-hook 'after-save-hook #'tilels--maybe-switch-mode nil t))

;;;; The server

(defvar tilels--checked (make-hash-table :test #'equal)
  "Program path -> its version, once checked.")

(defun tilels-check-server ()
  "Return the version of `tilels-program', or signal a clear error."
  (let* ((exe (car tilels-program))
         (path (and exe (executable-find exe))))
    (unless path
      (user-error "tilels: cannot start the language server: `%s' is not an executable program; build it (go build -o bin/tilels ./cmd/tilels in the tilels repository) and put it on PATH, or set `tilels-program'" exe))
    (or (gethash path tilels--checked)
        (let* ((out (with-temp-buffer
                      (cons (ignore-errors (call-process path nil t nil "--version"))
                            (buffer-string))))
               (version (and (eql (car out) 0)
                             (string-match "\\`tilels v?\\([0-9]+\\.[0-9]+\\.[0-9]+\\)" (cdr out))
                             (match-string 1 (cdr out)))))
          (cond
           ((not version)
            (user-error "tilels: `%s --version' printed %S: this needs tilels %s or newer"
                        path (string-trim (cdr out)) tilels-min-server-version))
           ((version< version tilels-min-server-version)
            (user-error "tilels: %s is tilels %s; this needs %s or newer: rebuild it"
                        path version tilels-min-server-version)))
          (puthash path version tilels--checked)))))

(defclass tilels-eglot-server (eglot-lsp-server) ()
  :documentation "The tilels language server.")

(defun tilels--settings ()
  "`tilels-settings' as a JSON object."
  (or tilels-settings eglot--{}))

(cl-defmethod eglot-initialization-options ((_server tilels-eglot-server))
  (tilels--settings))

(cl-defmethod eglot-handle-request
  ((_server tilels-eglot-server) (_method (eql workspace/configuration)) &key items)
  "Answer the ITEMS of section \"tilels\" that the workspace lacks.
The answer is `tilels-settings', unless `eglot-workspace-configuration'
has a :tilels section."
  (let ((answers (cl-call-next-method)))
    (cl-loop for item across items
             for i from 0
             when (and (equal (plist-get item :section) "tilels")
                       (null (aref answers i)))
             do (aset answers i (tilels--settings)))
    answers))

(defun tilels--contact (&optional _interactive)
  "The eglot contact of the tilels server, after checking its version."
  (tilels-check-server)
  (cons 'tilels-eglot-server tilels-program))

(defun tilels-send-settings ()
  "Send `tilels-settings' to every running tilels server."
  (interactive)
  (dolist (server (cl-loop for servers being the hash-values of eglot--servers-by-project
                           append servers))
    (when (cl-typep server 'tilels-eglot-server)
      (jsonrpc-notify server :workspace/didChangeConfiguration
                      (list :settings (list :tilels (tilels--settings)))))))

;;;###autoload
(defun tilels-eglot-setup ()
  "Hand Python files that import the TIRx DSL to tilels through eglot.
They open in `tilels-tirx-mode' (through `magic-mode-alist'), which
starts eglot; a `python-mode' file that gains the import switches when
saved."
  (add-to-list 'magic-mode-alist '(tilels--magic-p . tilels-tirx-mode))
  (add-to-list 'eglot-server-programs
               '((tilels-tirx-mode :language-id "python") . tilels--contact))
  (add-hook 'tilels-tirx-mode-hook #'eglot-ensure)
  (add-hook 'tilels-tirx-mode-hook #'tilels--source-setup)
  (add-hook 'python-mode-hook #'tilels--python-hook))

;;;; Commands

(defvar-local tilels--source nil
  "In a lowered buffer: its source buffer.")
(defvar-local tilels--kind nil
  "In a lowered buffer: \"cuda\" or \"tirx\".")
(defvar-local tilels--kernel nil
  "In a lowered buffer: the kernel shown, nil for all.")

(defun tilels--source-buffer ()
  "The TIRx buffer a command is for: this one, or a lowered buffer's source."
  (cond ((and tilels--source (buffer-live-p tilels--source)) tilels--source)
        ((derived-mode-p 'tilels-tirx-mode) (current-buffer))
        (t (user-error "tilels: not a TIRx buffer (a Python file that imports the TIRx DSL)"))))

(defun tilels--server (source)
  (with-current-buffer source
    (or (eglot-current-server)
        (user-error "tilels: %s has no running tilels server (M-x eglot)" (buffer-name source)))))

(defun tilels--uri (source)
  (with-current-buffer source (eglot--path-to-uri buffer-file-name)))

(defun tilels--execute (source command args &optional success error)
  "Run COMMAND with ARGS on SOURCE's server.
Synchronously, returning the result, unless SUCCESS is given: then call
SUCCESS with the result, or ERROR with the error message."
  (with-current-buffer source
    ;; The server answers from the newest text: send the pending edits.
    (when (fboundp 'eglot--signal-textDocument/didChange)
      (eglot--signal-textDocument/didChange)))
  (let ((server (tilels--server source))
        (params (list :command command :arguments (vconcat args))))
    (if success
        (jsonrpc-async-request server :workspace/executeCommand params
                               :success-fn success
                               :error-fn (lambda (err) (when error (funcall error (plist-get err :message))))
                               :timeout-fn (lambda () (when error (funcall error "timed out"))))
      (jsonrpc-request server :workspace/executeCommand params))))

(defvar tilels-lowered-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map "g" #'tilels-lowered-refresh)
    (define-key map "q" #'quit-window)
    map)
  "Keys of lowered buffers.")

(define-minor-mode tilels-lowered-mode
  "A read-only buffer with what a TIRx file lowers to.
\\{tilels-lowered-mode-map}"
  :lighter " lowered")

(defun tilels--lowered-buffer (source kind kernel)
  (let* ((name (format "*tilels %s.%s%s*" (buffer-name source)
                       (if (equal kind "tirx") "tirx" "cu")
                       (if kernel (concat " " kernel) "")))
         (buf (get-buffer-create name)))
    (with-current-buffer buf
      (unless tilels-lowered-mode
        (if (equal kind "tirx")
            (python-mode)
          (if (fboundp 'cuda-mode) (cuda-mode) (c++-mode)))
        (setq buffer-read-only t)
        (tilels-lowered-mode 1))
      (setq tilels--source source tilels--kind kind tilels--kernel kernel))
    buf))

(defun tilels--lowered-text (result kind)
  "The KIND (\"cuda\" or \"tirx\") text of a tilels.lower RESULT.
One line per kernel def with several cases, naming the case shown,
comes first."
  (let ((comment (if (equal kind "tirx") "# " "// ")))
    (concat
     (mapconcat (lambda (c)
                  (format "%stilels: %s case %d/%d: %s\n" comment
                          (plist-get c :kernel) (plist-get c :case)
                          (plist-get c :count) (plist-get c :label)))
                (plist-get result :cases) "")
     (plist-get result (if (equal kind "tirx") :tirx :cuda)))))

(defun tilels--fill (buf text)
  (with-current-buffer buf
    (let ((inhibit-read-only t)
          (line (line-number-at-pos)))
      (erase-buffer)
      (insert text)
      (goto-char (point-min))
      (forward-line (1- line))
      (set-buffer-modified-p nil))))

(defun tilels--mark-stale (buf message)
  "Keep BUF's last text under a first line with MESSAGE, why it is stale."
  (with-current-buffer buf
    (let ((inhibit-read-only t)
          (stale (format "%stilels: not refreshed: %s\n"
                         (if (equal tilels--kind "tirx") "# " "// ")
                         (car (split-string (or message "") "\n")))))
      (save-excursion
        (goto-char (point-min))
        (when (looking-at ".*tilels: not refreshed: .*\n")
          (delete-region (match-beginning 0) (match-end 0)))
        (insert stale))
      (set-buffer-modified-p nil))))

(defun tilels--lower-args (source kernel)
  (append (list (tilels--uri source)) (and kernel (list kernel))))

;;;###autoload
(defun tilels-show-lowered (&optional tirx kernel)
  "Show the CUDA this file lowers to in another window (TIRx with TIRX).
Through the server's tilels.lower; KERNEL alone when given.  Running
it again refreshes the same buffer.  Returns the buffer."
  (interactive (list current-prefix-arg nil))
  (let* ((source (tilels--source-buffer))
         (kind (if tirx "tirx" (or (and tilels--source tilels--kind) "cuda")))
         (kernel (or kernel (and tilels--source tilels--kernel)))
         (result (tilels--execute source "tilels.lower" (tilels--lower-args source kernel)))
         (buf (tilels--lowered-buffer source kind kernel)))
    (tilels--fill buf (tilels--lowered-text result kind))
    (display-buffer buf tilels-lowered-display-action)
    buf))

(defun tilels-lowered-refresh (&optional buf)
  "Refresh the lowered buffer BUF (the current one) from its source."
  (interactive)
  (let ((buf (or buf (current-buffer))))
    (with-current-buffer buf
      (let ((source tilels--source) (kind tilels--kind) (kernel tilels--kernel))
        (when (and source (buffer-live-p source))
          (tilels--execute source "tilels.lower" (tilels--lower-args source kernel)
                           (lambda (result)
                             (when (buffer-live-p buf)
                               (tilels--fill buf (tilels--lowered-text result kind))))
                           (lambda (message)
                             (when (buffer-live-p buf)
                               (tilels--mark-stale buf message)))))))))

(defun tilels--refresh-visible (source)
  "Refresh the visible lowered buffers of SOURCE."
  (dolist (buf (buffer-list))
    (when (and (eq (buffer-local-value 'tilels--source buf) source)
               (get-buffer-window buf t))
      (tilels-lowered-refresh buf))))

(defvar-local tilels--timer nil)

(defun tilels--after-change (&rest _)
  (when tilels-lowered-refresh-delay
    (when tilels--timer (cancel-timer tilels--timer))
    (let ((source (current-buffer)))
      (setq tilels--timer
            (run-with-timer tilels-lowered-refresh-delay nil
                                 (lambda ()
                                   (when (buffer-live-p source)
                                     (with-current-buffer source (setq tilels--timer nil))
                                     (tilels--refresh-visible source))))))))

(defun tilels--source-setup ()
  "Buffer-local hooks of a TIRx buffer: lowered buffers follow it."
  (add-hook 'after-change-functions #'tilels--after-change nil t)
  (add-hook 'after-save-hook (lambda () (tilels--refresh-visible (current-buffer))) nil t))

;;;###autoload
(defun tilels-write-cuda (&optional kernel)
  "Write the lowered CUDA to <name>.cu beside this file.
With KERNEL, that kernel alone to <name>.KERNEL.cu.  Through the
server's tilels.writeCUDA.  Returns the file name."
  (interactive)
  (let* ((source (tilels--source-buffer))
         (result (tilels--execute source "tilels.writeCUDA" (tilels--lower-args source kernel)))
         (file (eglot--uri-to-path (plist-get result :uri)))
         (visiting (find-buffer-visiting file)))
    (when (and visiting (not (buffer-modified-p visiting)))
      (with-current-buffer visiting (revert-buffer t t t)))
    (message "tilels: wrote %s" (abbreviate-file-name file))
    file))

;;;###autoload
(defun tilels-select-case (&optional kernel index)
  "Pick the case of the kernel def at point (or named KERNEL).
The server lists them (tilels.pickCase); the one chosen is selected
\(tilels.selectCase) and drives hovers, diagnostics and the lowered
buffers.  With INDEX, select that case without asking.  Returns the
server's answer."
  (interactive)
  (let* ((source (tilels--source-buffer))
         (where (or kernel
                    (if (eq source (current-buffer))
                        (eglot--pos-to-lsp-position)
                      (user-error "tilels: run it in the source, in a kernel def"))))
         (uri (tilels--uri source))
         (chosen
          (or index
              (let* ((res (tilels--execute source "tilels.pickCase" (list uri where)))
                     (cases (append (plist-get res :cases) nil))
                     (n (length cases))
                     (choices (mapcar (lambda (c)
                                        (cons (format "%d/%d %s%s%s" (plist-get c :case) n
                                                      (plist-get c :label)
                                                      (let ((id (plist-get c :id)))
                                                        (if (and id (not (equal id ""))) (format "  [%s]" id) ""))
                                                      (if (eql (plist-get c :case) (plist-get res :selected))
                                                          "  (selected)" ""))
                                              (plist-get c :case)))
                                      cases))
                     (pick (completing-read (format "Case of %s: " (plist-get res :kernel))
                                            choices nil t)))
                (setq where (plist-get res :kernel))
                (cdr (assoc pick choices)))))
         (res (tilels--execute source "tilels.selectCase" (list uri where chosen))))
    (message "tilels: %s case %d/%d: %s" (plist-get res :kernel) (plist-get res :case)
             (plist-get res :count) (plist-get res :label))
    (tilels--refresh-visible source)
    res))

(provide 'tilels-eglot)
;;; tilels-eglot.el ends here
